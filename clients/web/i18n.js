// Every text of the page in English and German. The language is the browser's by default,
// switched with the header button and remembered in localStorage.

const TEXTS = {
  en: {
    title: "Mau-Mau",
    skip: "Skip to the game",
    nav_play: "Play", nav_rooms: "Rooms", nav_ranked: "Ranked", nav_profile: "Profile",
    nav_leaderboard: "Leaderboard", switch_lang: "Deutsch", switch_lang_label: "Auf Deutsch umschalten",
    tips: "Learn with tips",
    welcome: "Play Mau-Mau in four rule systems, against computers or friends.",
    your_name: "Your name", start: "Let's go",
    play_now: "Play now", rule_system: "Rule system", computers: "Computers", level: "Level",
    options: "Options", play: "Play", create_room: "Create a room", seats: "Seats",
    preset_classic: "Family rules (classic)", preset_online: "Online room game",
    preset_ostfriesland: "East-Frisian tournament", preset_colour: "Colour game (UNO-like)",
    level_random: "easy (random)", level_heuristic: "good (club player)", level_strong: "strong (search)",
    opt_deck: "Deck", opt_target: "Target points (0: one round)", opt_wins: "Round wins to take the match",
    opt_rounds: "Rounds", opt_teams: "Teams (4 seats: 0+2 vs 1+3)",
    deck_french52: "52 cards", deck_skat32: "32 cards (Skat)",
    room: "Room {code}", invite: "Invite link", copy: "Copy link", copied: "Link copied",
    host_start: "Start now (computers take empty seats)", room_open: "Waiting for players",
    room_starting: "Starting…", room_playing: "Match {n} is on", seat: "Seat {seat}",
    empty_seat: "free", wins: "{n} won", you_mark: "(you)", host_mark: "host",
    join_room: "Join this room", ranked_queue: "Ranked queue", join_queue: "Join the queue",
    cancel: "Cancel", waiting: "Searching for a table… {seconds} s", seated: "Seated!",
    ticket_cancelled: "The search ended: {reason}",
    round: "Round {round}", to_serve: "To serve", wished: "wished: {suit}", top: "Top card",
    your_hand: "Your hand", your_turn: "Your turn", turn_of: "{name}'s turn",
    time_left: "{seconds} s left", cards_n: "{n} cards", card_1: "1 card", score: "score {n}",
    draw_pile: "Draw pile: {n}", pending_draw: "Penalty running: {n} cards",
    pending_skip: "Skip pending", pending_draw4: "W+4 pending: {n} cards",
    owes_call: "missed a call!", pressed_last: "pressed last", sits_out: "sits out",
    last_moves: "Last moves", actions: "Your options",
    act_draw: "Draw a card", act_pass: "Keep the drawn card", act_accept_draw: "Take {n} cards",
    act_accept_skip: "Sit out", act_challenge: "Challenge the W+4", act_catch: "Catch {name}",
    act_last: "Press “last”", act_name_suit: "Name {suit}",
    play_card: "Play {card}", play_wish: "Play {card} and wish {suit}",
    with_call: " and call {call}", call_mau: "“Mau”", call_maumau: "“Mau-Mau”",
    call_last: "“Letzte Karte”",
    choose: "Choose how to play {card}", back: "Back",
    tip: "Tip: {action}", tip_why: "{reason}", tips_off: "Tips are off", no_tips: "No tip now",
    match_over: "Match over", winners: "Winner: {names}", you_won: "You won!",
    you_lost: "Better luck next time.", scores_per_round: "Scores per round",
    total: "Total", xp_earned: "XP earned: {xp}", level_of: "Level {level}",
    xp_progress: "{xp} / {next} XP", rating_change: "Rating: {before} → {after}",
    waiting_rating: "Counting XP…", fair_check: "Fair-deal check",
    fair_commitment_ok: "The revealed server seed matches the commitment published before the deal.",
    fair_commitment_bad: "The revealed server seed does NOT match the commitment!",
    fair_nonce_ok: "Your own random nonce went into the deal.",
    fair_nonce_bad: "Your nonce is NOT the one used for the deal!",
    fair_nonce_none: "You sent no nonce for this match (a room or queue match).",
    fair_seed_ok: "The deal seed recomputes from the server seed and every nonce.",
    fair_seed_bad: "The deal seed does NOT recompute!",
    fair_ok: "Verified in your browser: the deal was fair.",
    fair_bad: "Warning: the deal could NOT be verified.",
    fair_pending: "The server reveals its seed when the match is over.",
    fair_cards_ok: "Every card you saw matches the replay from the seed: {n} cards (your hands, your draws and the starting cards).",
    fair_deal_bad: "Round {round}: the hand you were dealt ({cards}) does NOT match the replay from the seed!",
    fair_draw_bad: "Round {round}: you drew {cards}, but the replay from the seed gives {expected_cards}!",
    fair_starter_bad: "Round {round}: the starting card {card} does NOT match the replay from the seed ({expected})!",
    fair_dealer_bad: "Round {round}: the dealer does NOT match the replay from the seed!",
    fair_count_bad: "Round {round}: the cards dealt, drawn and reshuffled do NOT add up in the replay from the seed!",
    fair_replay_missing: "The deck of this rule system could not be loaded, so your cards were NOT replayed.",
    next_match: "The room starts the next match by itself.", next_match_button: "To the next match", new_match: "New match", home: "Lobby",
    profile: "Profile", xp: "XP", matches_played: "Matches played: {n}", matches_won: "won: {n}",
    ratings: "Ratings", recent: "Recent matches", season: "Season", rank: "Rank", name: "Name",
    rating: "Rating", played: "Played", leaderboard: "Leaderboard", around_you: "Around you",
    nobody: "Nobody here yet.", loading: "Loading…", reconnecting: "Connection lost: reconnecting…",
    you: "You", bot: "Computer {seat}",
    suit_S: "spades", suit_H: "hearts", suit_D: "diamonds", suit_C: "clubs",
    suit_R: "red", suit_G: "green", suit_B: "blue", suit_Y: "yellow",
    rank_J: "Jack", rank_Q: "Queen", rank_K: "King", rank_A: "Ace",
    card_french: "{rank} of {suit}", card_colour: "{colour} {symbol}", wild: "Wild", wild4: "Wild draw four",
    sym_skip: "skip", sym_rev: "reverse", "sym_+2": "draw two",
    ev_joined: "{who} sits down", ev_started: "The match starts.",
    ev_round: "Round {round}: starter {card}.", ev_dealt: "{who} got {n} cards.",
    ev_dealt_me: "You got {cards}.", ev_draw: "{who} draws {n}.", ev_draw_me: "You draw {cards}.",
    ev_penalty: "{who} takes {n} penalty cards.", ev_played: "{who} plays {card}.",
    ev_penalty_me: "You take {n} penalty cards.", ev_played_me: "You play {card}.",
    ev_suit_named_me: "You name {suit}.", ev_called_me: "You call {call}.", ev_skipped_me: "You sit out.",
    ev_passed_me: "You keep the card.", ev_round_over_me: "Round {round} over: you went out!",
    ev_timed_out_me: "You ran out of time.",
    ev_wish: " Wish: {suit}.", ev_call: " {call}!", ev_suit_named: "{who} names {suit}.",
    ev_called: "{who} calls {call}.", ev_skipped: "{who} sits out.", ev_direction: "Direction changes.",
    ev_caught: "{by} catches {whom}.", ev_bluff: "{by} challenges {whom}: a bluff!",
    ev_no_bluff: "{by} challenges {whom}: it was legal.", ev_passed: "{who} keeps the card.",
    ev_reshuffled: "The discard pile is shuffled into a new draw pile.", ev_turn: "{who}: your turn." ,
    ev_turn_other: "{who} to play.",
    ev_round_over: "Round {round} over: {who} went out.", ev_match_over: "The match is over.",
    ev_timed_out: "{who} ran out of time.", ev_handed_to_bot: "A computer plays for {who} now.",
    ev_left: "{who} left.", ev_seed: "The server revealed its seed.",
    reason_target: "a score reached the target", reason_rounds: "all rounds played",
    reason_wins: "enough rounds won", reason_single: "single round", reason_tie_break: "deciding round",
    reason_abandoned: "abandoned",
    when: "When", score_column: "Score",
    nav_tournaments: "Tournaments", tournaments: "Tournaments", tour_status: "Status",
    tour_status_registration: "open for registration", tour_status_playing: "being played",
    tour_status_deciding: "deciding rounds", tour_status_finished: "finished", tour_status_cancelled: "cancelled",
    tour_entrants: "Entrants", tour_entrants_n: "{n} of {max} entrants", tour_format: "Format", tour_ranked: "Championship",
    tour_rounds_every: "{rounds} rounds, table changes after every {every}", tour_per_table: "up to {n} per table",
    tour_block: "block {block} of {blocks}", tour_register: "Register", tour_withdraw: "Withdraw",
    tour_registered: "You are registered.", tour_withdrawn: "You withdrew.",
    tour_you_entered: "You are an entrant.", tour_you_left: "You left this tournament: your points so far count.",
    tour_play_table: "Play your table (table {table}, block {block})", tour_play_decider: "Play your deciding round",
    tour_live: "Live standings", tour_standings: "Standings", tour_final: "Final ranking",
    tour_points: "Points", tour_maumaus: "Mau-Mau", tour_rounds_played: "Rounds", tour_table: "Table",
    tour_left: "left", tour_back: "Back to the tournament", tour_finished_at: "Finished {when}",
    tour_year: "Year", tour_show_year: "Show", tour_unavailable: "The championship table is not available right now.",
    championship: "Championship {year}", champ_points: "Championship points",
    champ_tied: "tied: a deciding game is owed", champ_decider: "tied: the deciding game",
  },
  de: {
    title: "Mau-Mau",
    skip: "Zum Spiel springen",
    nav_play: "Spielen", nav_rooms: "Räume", nav_ranked: "Rangliste spielen", nav_profile: "Profil",
    nav_leaderboard: "Bestenliste", switch_lang: "English", switch_lang_label: "Switch to English",
    tips: "Mit Tipps lernen",
    welcome: "Spiele Mau-Mau in vier Regelwerken, gegen den Computer oder mit Freunden.",
    your_name: "Dein Name", start: "Los geht's",
    play_now: "Jetzt spielen", rule_system: "Regelwerk", computers: "Computer", level: "Stärke",
    options: "Optionen", play: "Spielen", create_room: "Raum öffnen", seats: "Plätze",
    preset_classic: "Familienregeln (klassisch)", preset_online: "Online-Raumspiel",
    preset_ostfriesland: "Ostfriesisches Turnier", preset_colour: "Farbenspiel (wie UNO)",
    level_random: "leicht (zufällig)", level_heuristic: "gut (Vereinsspieler)", level_strong: "stark (Suche)",
    opt_deck: "Blatt", opt_target: "Zielpunkte (0: eine Runde)", opt_wins: "Rundensiege für die Partie",
    opt_rounds: "Runden", opt_teams: "Teams (4 Plätze: 0+2 gegen 1+3)",
    deck_french52: "52 Karten", deck_skat32: "32 Karten (Skat)",
    room: "Raum {code}", invite: "Einladungslink", copy: "Link kopieren", copied: "Link kopiert",
    host_start: "Jetzt starten (Computer nehmen freie Plätze)", room_open: "Warte auf Mitspieler",
    room_starting: "Startet…", room_playing: "Partie {n} läuft", seat: "Platz {seat}",
    empty_seat: "frei", wins: "{n} gewonnen", you_mark: "(du)", host_mark: "Gastgeber",
    join_room: "Diesem Raum beitreten", ranked_queue: "Warteschlange (Rangliste)",
    join_queue: "Anstellen", cancel: "Abbrechen", waiting: "Suche einen Tisch… {seconds} s",
    seated: "Platz gefunden!", ticket_cancelled: "Die Suche ist beendet: {reason}",
    round: "Runde {round}", to_serve: "Zu bedienen", wished: "gewünscht: {suit}", top: "Oben liegt",
    your_hand: "Deine Hand", your_turn: "Du bist dran", turn_of: "{name} ist dran",
    time_left: "noch {seconds} s", cards_n: "{n} Karten", card_1: "1 Karte", score: "Punkte {n}",
    draw_pile: "Stapel: {n}", pending_draw: "Strafe läuft: {n} Karten",
    pending_skip: "Aussetzen liegt an", pending_draw4: "W+4 liegt an: {n} Karten",
    owes_call: "Ansage vergessen!", pressed_last: "hat „letzte“ gedrückt", sits_out: "setzt aus",
    last_moves: "Letzte Züge", actions: "Deine Möglichkeiten",
    act_draw: "Karte ziehen", act_pass: "Gezogene Karte behalten", act_accept_draw: "{n} Karten nehmen",
    act_accept_skip: "Aussetzen", act_challenge: "W+4 anzweifeln", act_catch: "{name} erwischen",
    act_last: "„Letzte“ drücken", act_name_suit: "{suit} wünschen",
    play_card: "{card} spielen", play_wish: "{card} spielen und {suit} wünschen",
    with_call: " und {call} ansagen", call_mau: "„Mau“", call_maumau: "„Mau-Mau“",
    call_last: "„Letzte Karte“",
    choose: "Wie willst du {card} spielen?", back: "Zurück",
    tip: "Tipp: {action}", tip_why: "{reason}", tips_off: "Tipps sind aus", no_tips: "Gerade kein Tipp",
    match_over: "Partie vorbei", winners: "Gewonnen hat: {names}", you_won: "Du hast gewonnen!",
    you_lost: "Beim nächsten Mal klappt's.", scores_per_round: "Punkte je Runde",
    total: "Summe", xp_earned: "Erfahrung: +{xp} XP", level_of: "Stufe {level}",
    xp_progress: "{xp} / {next} XP", rating_change: "Wertung: {before} → {after}",
    waiting_rating: "XP werden gezählt…", fair_check: "Prüfung des fairen Gebens",
    fair_commitment_ok: "Der enthüllte Server-Seed passt zur vor dem Geben veröffentlichten Festlegung.",
    fair_commitment_bad: "Der enthüllte Server-Seed passt NICHT zur Festlegung!",
    fair_nonce_ok: "Deine eigene Zufallszahl (Nonce) ist in das Geben eingeflossen.",
    fair_nonce_bad: "Deine Nonce ist NICHT die beim Geben verwendete!",
    fair_nonce_none: "Für diese Partie hast du keine Nonce geschickt (Raum oder Warteschlange).",
    fair_seed_ok: "Der Geben-Seed ergibt sich aus dem Server-Seed und allen Nonces.",
    fair_seed_bad: "Der Geben-Seed lässt sich NICHT nachrechnen!",
    fair_ok: "In deinem Browser geprüft: Es wurde fair gegeben.",
    fair_bad: "Achtung: Das Geben ließ sich NICHT bestätigen.",
    fair_pending: "Der Server enthüllt seinen Seed, wenn die Partie vorbei ist.",
    fair_cards_ok: "Jede Karte, die du gesehen hast, stimmt mit dem Nachspielen aus dem Seed überein: {n} Karten (deine Hände, deine gezogenen Karten und die Startkarten).",
    fair_deal_bad: "Runde {round}: Die Hand, die du bekommen hast ({cards}), stimmt NICHT mit dem Nachspielen aus dem Seed überein!",
    fair_draw_bad: "Runde {round}: Du hast {cards} gezogen, aber das Nachspielen aus dem Seed ergibt {expected_cards}!",
    fair_starter_bad: "Runde {round}: Die Startkarte {card} stimmt NICHT mit dem Nachspielen aus dem Seed überein ({expected})!",
    fair_dealer_bad: "Runde {round}: Der Geber stimmt NICHT mit dem Nachspielen aus dem Seed überein!",
    fair_count_bad: "Runde {round}: Gegebene, gezogene und gemischte Karten gehen beim Nachspielen aus dem Seed NICHT auf!",
    fair_replay_missing: "Das Kartenspiel dieses Regelwerks ließ sich nicht laden: deine Karten wurden NICHT nachgespielt.",
    next_match: "Der Raum startet die nächste Partie von selbst.", next_match_button: "Zur nächsten Partie", new_match: "Neue Partie", home: "Übersicht",
    profile: "Profil", xp: "XP", matches_played: "Partien gespielt: {n}", matches_won: "gewonnen: {n}",
    ratings: "Wertungen", recent: "Letzte Partien", season: "Saison", rank: "Platz", name: "Name",
    rating: "Wertung", played: "Gespielt", leaderboard: "Bestenliste", around_you: "Rund um dich",
    nobody: "Noch niemand da.", loading: "Lädt…", reconnecting: "Verbindung verloren: verbinde neu…",
    you: "Du", bot: "Computer {seat}",
    suit_S: "Pik", suit_H: "Herz", suit_D: "Karo", suit_C: "Kreuz",
    suit_R: "Rot", suit_G: "Grün", suit_B: "Blau", suit_Y: "Gelb",
    rank_J: "Bube", rank_Q: "Dame", rank_K: "König", rank_A: "Ass",
    card_french: "{suit} {rank}", card_colour: "{colour} {symbol}", wild: "Farbwahl", wild4: "Farbwahl +4",
    sym_skip: "Aussetzen", sym_rev: "Richtungswechsel", "sym_+2": "Zieh zwei",
    ev_joined: "{who} setzt sich", ev_started: "Die Partie beginnt.",
    ev_round: "Runde {round}: Startkarte {card}.", ev_dealt: "{who} bekommt {n} Karten.",
    ev_dealt_me: "Du bekommst {cards}.", ev_draw: "{who} zieht {n}.", ev_draw_me: "Du ziehst {cards}.",
    ev_penalty: "{who} nimmt {n} Strafkarten.", ev_played: "{who} spielt {card}.",
    ev_penalty_me: "Du nimmst {n} Strafkarten.", ev_played_me: "Du spielst {card}.",
    ev_suit_named_me: "Du wünschst {suit}.", ev_called_me: "Du sagst {call}.", ev_skipped_me: "Du setzt aus.",
    ev_passed_me: "Du behältst die Karte.", ev_round_over_me: "Runde {round} vorbei: du bist raus!",
    ev_timed_out_me: "Du hast die Zeit überschritten.",
    ev_wish: " Wunsch: {suit}.", ev_call: " {call}!", ev_suit_named: "{who} wünscht {suit}.",
    ev_called: "{who} sagt {call}.", ev_skipped: "{who} setzt aus.", ev_direction: "Die Richtung wechselt.",
    ev_caught: "{by} erwischt {whom}.", ev_bluff: "{by} zweifelt bei {whom} an: geblufft!",
    ev_no_bluff: "{by} zweifelt bei {whom} an: war erlaubt.", ev_passed: "{who} behält die Karte.",
    ev_reshuffled: "Der Ablagestapel wird zum neuen Stapel gemischt.", ev_turn: "{who}: du bist dran.",
    ev_turn_other: "{who} ist dran.",
    ev_round_over: "Runde {round} vorbei: {who} ist raus.", ev_match_over: "Die Partie ist vorbei.",
    ev_timed_out: "{who} hat die Zeit überschritten.", ev_handed_to_bot: "Für {who} spielt jetzt ein Computer.",
    ev_left: "{who} ist gegangen.", ev_seed: "Der Server hat seinen Seed enthüllt.",
    reason_target: "Zielpunktzahl erreicht", reason_rounds: "alle Runden gespielt",
    reason_wins: "genug Runden gewonnen", reason_single: "eine Runde", reason_tie_break: "Entscheidungsrunde",
    reason_abandoned: "abgebrochen",
    when: "Wann", score_column: "Punkte",
    nav_tournaments: "Turniere", tournaments: "Turniere", tour_status: "Stand",
    tour_status_registration: "Anmeldung offen", tour_status_playing: "läuft",
    tour_status_deciding: "Stechen", tour_status_finished: "beendet", tour_status_cancelled: "abgesagt",
    tour_entrants: "Teilnehmer", tour_entrants_n: "{n} von {max} Teilnehmern", tour_format: "Modus", tour_ranked: "Meisterschaft",
    tour_rounds_every: "{rounds} Runden, Tischwechsel nach je {every}", tour_per_table: "bis zu {n} je Tisch",
    tour_block: "Block {block} von {blocks}", tour_register: "Anmelden", tour_withdraw: "Abmelden",
    tour_registered: "Du bist angemeldet.", tour_withdrawn: "Du hast dich abgemeldet.",
    tour_you_entered: "Du bist Teilnehmer.", tour_you_left: "Du hast das Turnier verlassen: deine bisherigen Punkte zählen.",
    tour_play_table: "An deinen Tisch (Tisch {table}, Block {block})", tour_play_decider: "Dein Stechen spielen",
    tour_live: "Aktueller Stand", tour_standings: "Stand", tour_final: "Endstand",
    tour_points: "Punkte", tour_maumaus: "Mau-Mau", tour_rounds_played: "Runden", tour_table: "Tisch",
    tour_left: "ausgeschieden", tour_back: "Zurück zum Turnier", tour_finished_at: "Beendet {when}",
    tour_year: "Jahr", tour_show_year: "Zeigen", tour_unavailable: "Die Meisterschaftstabelle ist gerade nicht erreichbar.",
    championship: "Meisterschaft {year}", champ_points: "Meisterschaftspunkte",
    champ_tied: "punktgleich: ein Stechen steht aus", champ_decider: "punktgleich: das Stechen",
  },
};

const KEY = "maumau.lang";

export function initialLanguage() {
  const saved = localStorage.getItem(KEY);
  if (saved === "de" || saved === "en") return saved;
  const browser = (navigator.language || "en").slice(0, 2).toLowerCase();
  return browser === "de" ? "de" : "en";
}

let current = initialLanguage();

export function lang() {
  return current;
}

export function setLanguage(code) {
  current = code === "de" ? "de" : "en";
  localStorage.setItem(KEY, current);
  document.documentElement.lang = current;
}

export function t(key, params = {}) {
  const template = TEXTS[current][key] ?? TEXTS.en[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
}

const FRENCH = /^(10|[2-9JQKA])([SHDC])$/;
const SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };

// A card's parts from its text form ("10H", "JD", "R7", "Gskip", "W+4").
export function cardParts(text) {
  const french = FRENCH.exec(text);
  if (french) return { deck: "french", rank: french[1], suit: french[2], symbol: SYMBOLS[french[2]] };
  if (text === "W" || text === "W+4") return { deck: "colour", colour: "W", symbol: text === "W" ? "★" : "+4" };
  return { deck: "colour", colour: text[0], symbol: text.slice(1) };
}

export function suitName(code) {
  return t(`suit_${code}`);
}

// A card in words: "Jack of hearts", "Herz Bube", "red skip".
export function cardName(text) {
  const parts = cardParts(text);
  if (parts.deck === "french") {
    const rank = t(`rank_${parts.rank}`) === `rank_${parts.rank}` ? parts.rank : t(`rank_${parts.rank}`);
    return t("card_french", { rank, suit: suitName(parts.suit) });
  }
  if (text === "W") return t("wild");
  if (text === "W+4") return t("wild4");
  const key = `sym_${parts.symbol}`;
  const symbol = t(key) === key ? parts.symbol : t(key);
  return t("card_colour", { colour: suitName(parts.colour), symbol });
}
