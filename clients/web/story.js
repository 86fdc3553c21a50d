// The table's history in a few human lines: one line per turn ("Computer 2 plays the 8 of
// spades: you sit out"), the round's start and end on lines of their own, and no line for a turn
// merely passing on. Built from the match's events as the page receives them.

import { cardName, suitName, t } from "./i18n.js";

const LINES = 40;

// A predicate in the third person or, for the page's own seat, the second ("plays" / "play").
const said = (key, mine, params) => t(mine ? `${key}_you` : key, params);

export class Story {
  constructor(nameOf, mySeat) {
    this.nameOf = nameOf; // seat -> "Computer 2" (or "You")
    this.mySeat = mySeat;
    this.lines = [];
    this.open = null; // the line of the turn being played: { subject, text, others }
  }

  who(seat, inner) {
    if (seat === this.mySeat()) return t(inner ? "you_inner" : "you");
    return this.nameOf(seat);
  }

  // One event: returns the sentence to announce for it ("" for none).
  add(kind, e) {
    const me = this.mySeat();
    const cards = (list) => (list || []).map(cardName).join(", ");
    const call = (word) => t(`call_${word}`);
    let phrase = null; // { seat, text } of a predicate of seat
    let line = null; // a line of its own
    switch (kind) {
      case "round_started":
        line = t("h_round", { round: e.round, card: cardName(e.starter) });
        break;
      case "drew": {
        if (e.reason === "deal") return "";
        const mine = e.seat === me;
        let text;
        if (e.reason === "draw") {
          text = mine && e.cards.length ? said("pr_draw_card", true, { cards: cards(e.cards) })
            : said(e.count === 1 ? "pr_draw_one" : "pr_draw_n", mine, { n: e.count });
        } else {
          const key = { caught: "pr_draw_caught", challenge: "pr_draw_challenge", ace: "pr_draw_ace" }[e.reason] || "pr_take";
          text = said(key, mine, { n: e.count });
          if (mine && e.cards.length) text += ` (${cards(e.cards)})`;
        }
        phrase = { seat: e.seat, text };
        break;
      }
      case "played": {
        const mine = e.seat === me;
        let text = e.suit ? said("pr_play_wish", mine, { card: cardName(e.card), suit: suitName(e.suit) })
          : said("pr_play", mine, { card: cardName(e.card) });
        if (e.call) text += t("h_call", { call: call(e.call) });
        phrase = { seat: e.seat, text };
        break;
      }
      case "passed": phrase = { seat: e.seat, text: said("pr_keep", e.seat === me) }; break;
      case "skipped": phrase = { seat: e.seat, text: said("pr_skipped", e.seat === me) }; break;
      case "suit_named": phrase = { seat: e.seat, text: said("pr_name_suit", e.seat === me, { suit: suitName(e.suit) }) }; break;
      case "called": phrase = { seat: e.seat, text: said("pr_call", e.seat === me, { call: call(e.word) }) }; break;
      case "caught": phrase = { seat: e.by, text: said("pr_catch", e.by === me, { whom: this.who(e.seat, true) }) }; break;
      case "challenged":
        phrase = { seat: e.by, text: said(e.bluff ? "pr_challenge_bluff" : "pr_challenge_fair", e.by === me, { whom: this.who(e.seat, true) }) };
        break;
      case "timed_out": phrase = { seat: e.seat, text: said("pr_timed_out", e.seat === me) }; break;
      case "direction_changed": phrase = { seat: null, text: t("h_direction") }; break;
      case "reshuffled": line = t("h_reshuffled"); break;
      case "round_over":
        line = `${this.who(e.winner)} ${said("pr_round_won", e.winner === me, { round: e.round })}`;
        break;
      case "match_over": line = t("h_match_over"); break;
      case "handed_to_bot": line = t("h_handed_to_bot", { who: this.who(e.seat, true) }); break;
      case "left": line = t("h_left", { who: this.who(e.seat) }); break;
      case "turn_started": this.open = null; return "";
      default: return "";
    }
    if (line) {
      this.open = null;
      this.push({ text: line });
      return line;
    }
    const sentence = phrase.seat === null ? phrase.text : `${this.who(phrase.seat)} ${phrase.text}`;
    const open = this.open;
    if (!open) {
      this.open = { subject: phrase.seat, text: sentence, others: 0 };
      this.push(this.open);
    } else if (phrase.seat !== null && phrase.seat === open.subject && !open.others) {
      open.text += ` ${t("and")} ${phrase.text}`;
    } else {
      const inner = phrase.seat === null ? phrase.text : `${this.who(phrase.seat, true)} ${phrase.text}`;
      open.text += `${open.others ? "," : ":"} ${inner}`;
      open.others += 1;
    }
    return `${sentence}.`;
  }

  push(line) {
    this.lines.push(line);
    if (this.lines.length > LINES) this.lines.splice(0, this.lines.length - LINES);
  }

  texts() {
    return this.lines.map((line) => (/[.!?]$/.test(line.text) ? line.text : `${line.text}.`));
  }
}
