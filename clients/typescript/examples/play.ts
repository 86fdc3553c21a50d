// A whole match against a bot: register, create the match, act on each of your turns, then
// follow the match's events to its end. Start the platform first (`make run`), then:
//   npm run example -- [engine address, default 127.0.0.1:50051]
import { type Action, BotLevel, Platform, type View, refusalOf } from "@maumau/client";

/** A card if one fits (with its call, if one is due), else draw, accept or pass. */
function choose(view: View): Action {
  const plays = view.legal.filter((action) => action.kind.case === "play");
  const called = plays.find((action) => action.kind.case === "play" && action.kind.value.call);
  const moves = view.legal.filter((a) => a.kind.case !== "catchSeat" && a.kind.case !== "call");
  return called ?? plays[0] ?? moves[0] ?? view.legal[0]!;
}

const platform = Platform.connect({ engine: process.argv[2] ?? "127.0.0.1:50051" });
try {
  // 1. Register once: a player id and a player token (the Player keeps it)
  const player = await platform.register("Ada");
  // 2. Create a match against a bot: your seat, with its seat token
  const seat = await player.createMatch({
    preset: "classic",
    seats: 2,
    bots: { 1: BotLevel.RANDOM },
    options: { target: 0 }, // one round
  });
  console.log(`match ${seat.matchId}, seat ${seat.seat}`);
  // 3. Act each time the match waits for your seat (view.toAct === view.seat)
  for await (const view of seat.turns()) {
    const action = choose(view);
    try {
      const answer = await seat.act(action);
      console.log(`${action.text.padStart(8)} -> hand ${answer.view?.hand.join(" ")}`);
    } catch (error) {
      // a refusal: its reason (ErrorInfo), e.g. NOT_YOUR_TURN after a turn timer ran out
      console.log(`${action.text} refused: ${refusalOf(error).reason}`);
    }
  }
  // 4. Follow: every event your seat may see; the stream ends after the seed is revealed
  for await (const { event } of seat.follow()) {
    if (event?.kind.case === "matchOver") {
      const { winners, reason } = event.kind.value;
      console.log(`winners: seats ${winners.join(", ")} (${reason})`);
    }
  }
} finally {
  platform.close();
}
