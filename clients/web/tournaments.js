// The tournaments pages: the list with the year's championship table (/tournaments), and one
// tournament (/tournament/ID) with registration, live standings, the player's table in the
// block being played, and the final ranking. Every rule and refusal comes from the service.

import { ApiError, get, post } from "./api.js";
import { lang, t } from "./i18n.js";
import { $, fill } from "./dom.js";
import { rulesetName } from "./i18n.js";

const REFRESH_MS = 3000;
const OVER = ["finished", "cancelled"];

// The page's refresh timer: one at a time, stopped when the page is left.
let refresh = null;

export function stopTournaments() {
  clearTimeout(refresh);
  refresh = null;
}

function grid(id, caption, headers, rows, empty = t("nobody")) {
  if (!rows.length) return $("p", { id, class: "empty", text: empty });
  return $("table", { id },
    $("caption", { text: caption }),
    $("thead", {}, $("tr", {}, headers.map((h) => $("th", { scope: "col", text: String(h) })))),
    $("tbody", {}, rows.map((row) => $("tr", {}, row.map((cell) => (cell instanceof Node ? $("td", {}, cell) : $("td", { text: String(cell) })))))));
}

function statusText(status) {
  return t(`tour_status_${status}`);
}

function thisYear() {
  return Number(new Intl.DateTimeFormat("en", { year: "numeric", timeZone: "Europe/Berlin" }).format(new Date()));
}

// ---------------------------------------------------------------- the list and the championship

export async function tournamentsPage(main, go, announce, me) {
  const year = Number(new URLSearchParams(location.search).get("year")) || thisYear();
  const [listed, champ] = await Promise.all([
    get("/api/tournaments?limit=50"),
    get(`/api/championship?year=${year}`).catch((error) => { announce(error.message, true); return null; }),
  ]);
  const link = (tid, name) => $("a", { href: `/tournament/${encodeURIComponent(tid)}`, onclick: (e) => { e.preventDefault(); go(`/tournament/${encodeURIComponent(tid)}`); } }, name);
  // A tournament open for registration is joined from the list in one click.
  const join = (tour) => $("button", { type: "button", class: "primary", "aria-label": t("tour_join_label", { name: tour.name }),
    onclick: async () => {
      try {
        await post(`/api/tournaments/${encodeURIComponent(tour.tournament_id)}/register`);
        announce(t("tour_registered"));
        go(`/tournament/${encodeURIComponent(tour.tournament_id)}`);
      } catch (error) {
        announce(error.message, true);
      }
    } }, t("tour_join"));
  const rows = listed.tournaments.map((tour) => [
    link(tour.tournament_id, tour.name), statusText(tour.status), tour.entrants.filter((e) => !e.left).length,
    t("tour_rounds_every", { rounds: tour.rounds, every: tour.change_every }), tour.ranked ? "✓" : "–",
    tour.status === "registration" && !tour.entrants.some((e) => e.entrant_id === me.player_id) ? join(tour) : "",
  ]);
  const yearInput = $("input", { name: "year", type: "number", min: "2000", max: "9999", value: String(year) });
  const yearForm = $("form", { class: "year-form", onsubmit: (e) => {
    e.preventDefault();
    go(`/tournaments?year=${encodeURIComponent(yearInput.value)}`);
  } }, $("label", { class: "field" }, $("span", { text: t("tour_year_label") }), yearInput), $("button", { type: "submit" }, t("tour_show_year")));
  fill(main,
    $("h1", { text: t("tournaments") }),
    grid("tournament-list", t("tournaments"), [t("name"), t("tour_status"), t("tour_entrants"), t("tour_format"), t("tour_ranked"), ""], rows, t("tour_none")),
    $("h2", { id: "championship-title", text: t("championship", { year: champ ? champ.year : year }) }),
    champ ? championshipTable(champ, go) : $("p", { text: t("tour_unavailable") }),
    yearForm);
}

function championshipTable(champ, go) {
  const rows = champ.rows.map((r) => {
    let note = "";
    if (r.decider) {
      note = $("a", { href: `/tournament/${encodeURIComponent(r.decider)}`, onclick: (e) => { e.preventDefault(); go(`/tournament/${encodeURIComponent(r.decider)}`); } }, t("champ_decider"));
    } else if (r.tied) {
      note = t("champ_tied");
    }
    return [r.place, r.name || r.player, r.points, r.maumaus, r.tournaments, note];
  });
  return grid("championship", t("championship", { year: champ.year }),
    [t("rank"), t("name"), t("champ_points"), t("tour_maumaus"), t("tournaments"), ""], rows, t("champ_none", { year: champ.year }));
}

// ---------------------------------------------------------------- one tournament

export async function tournamentPage(main, tournamentId, me, go, announce) {
  stopTournaments();
  const section = $("section", { id: "tournament", "data-tournament": tournamentId });
  fill(main, section);
  const draw = async () => {
    const { tournament, standings } = await get(`/api/tournaments/${encodeURIComponent(tournamentId)}`);
    if (!section.isConnected) return;
    const seat = await seatOf(tournament, me);
    if (!section.isConnected) return;
    section.replaceChildren(...tournamentView(tournament, standings, seat, me, go, announce, draw).filter(Boolean));
    section.dataset.status = tournament.status;
    if (!OVER.includes(tournament.status)) schedule();
  };
  const schedule = () => {
    clearTimeout(refresh);
    refresh = setTimeout(() => {
      if (section.isConnected) draw().catch((error) => { announce(error.message, true); schedule(); });
    }, REFRESH_MS);
  };
  await draw();
}

// The player's seat in the block (or deciding round) being played, if it is theirs to play now.
async function seatOf(tournament, me) {
  const playing = tournament.status === "playing" && tournament.tables.some((table) =>
    table.match_id && !table.done && table.entrants.includes(me.player_id));
  if (!playing && tournament.status !== "deciding") return null;
  const mine = tournament.entrants.find((e) => e.entrant_id === me.player_id);
  if (!mine || mine.left) return null; // a player who left has no seat to play
  try {
    const seat = await get(`/api/tournaments/${encodeURIComponent(tournament.tournament_id)}/seat`);
    return seat.match_id ? seat : null;
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) return null; // no seat for you right now
    throw error;
  }
}

function tournamentView(tournament, standings, seat, me, go, announce, redraw) {
  const mine = tournament.entrants.find((e) => e.entrant_id === me.player_id);
  const entrants = tournament.entrants.filter((e) => !e.left).length;
  const tid = encodeURIComponent(tournament.tournament_id);
  const facts = [
    statusText(tournament.status),
    rulesetName(tournament.ruleset),
    t("tour_rounds_every", { rounds: tournament.rounds, every: tournament.change_every }),
    t("tour_per_table", { n: tournament.max_per_table }),
    t("tour_entrants_n", { n: entrants, max: tournament.max_entrants }),
  ];
  if (tournament.status === "playing") facts.push(t("tour_block", { block: tournament.block + 1, blocks: tournament.blocks }));
  const act = (path, done) => async () => {
    try {
      await post(`/api/tournaments/${tid}/${path}`);
      announce(t(done));
      await redraw();
    } catch (error) {
      announce(error.message, true);
    }
  };
  const actions = [];
  if (tournament.status === "registration" && !mine) {
    actions.push($("button", { type: "button", id: "register", onclick: act("register", "tour_registered") }, t("tour_register")));
  }
  if (tournament.status === "registration" && mine) {
    actions.push($("button", { type: "button", id: "withdraw", class: "secondary", onclick: act("unregister", "tour_withdrawn") }, t("tour_withdraw")));
  }
  if (seat) {
    const label = seat.table >= 0 ? t("tour_play_table", { table: seat.table + 1, block: seat.block + 1 }) : t("tour_play_decider");
    actions.push($("button", { type: "button", id: "play-table", onclick: () => go(`/play?match=${encodeURIComponent(seat.match_id)}&tournament=${tid}`) }, label));
  }
  const you = mine ? (mine.left ? t("tour_you_left") : t("tour_you_entered")) : "";
  const final = standings.final;
  const headers = [t("rank"), t("name"), t("tour_points"), t("tour_maumaus"), t("tour_rounds_played"), final ? t("champ_points") : t("tour_table")];
  const rows = standings.rows.map((r) => [
    r.place,
    `${r.name}${r.entrant_id === me.player_id ? ` ${t("you_mark")}` : ""}${r.left ? ` (${t("tour_left")})` : ""}`,
    r.points + (r.deciding.length ? ` (${r.deciding.join(", ")})` : ""),
    r.maumaus, r.rounds_played,
    final ? r.championship_points : (r.table >= 0 ? r.table + 1 : "–"),
  ]);
  const caption = final ? t("tour_final") : OVER.includes(tournament.status) ? t("tour_standings") : t("tour_live");
  const nodes = [
    $("h1", { text: tournament.name }),
    $("p", { class: "tour-facts", text: facts.join(" · ") }),
    you ? $("p", { class: "tour-you", text: you }) : null,
    actions.length ? $("div", { class: "actions" }, actions) : null,
    $("h2", { id: "standings-title", text: caption }),
    tournament.status === "registration"
      ? grid("entrants", t("tour_entrants"), [t("name"), t("level")], tournament.entrants.map((e) => [e.name, e.bot_level ? t(`level_${e.bot_level}`) : ""]))
      : grid("standings", caption, headers, rows),
  ];
  if (final && tournament.championship_year) {
    nodes.push($("p", {}, $("a", { id: "championship-link", href: `/tournaments?year=${tournament.championship_year}`,
      onclick: (e) => { e.preventDefault(); go(`/tournaments?year=${tournament.championship_year}`); } },
    t("championship", { year: tournament.championship_year }))));
  }
  if (tournament.finished_at) {
    nodes.push($("p", { class: "label", text: t("tour_finished_at", { when: new Date(tournament.finished_at * 1000).toLocaleString(lang()) }) }));
  }
  return nodes;
}
