// Every text of the page in English and German. The language is the browser's by default,
// switched with the header button and remembered in localStorage.

const TEXTS = {
  en: {
    title: "Mau-Mau", skip: "Skip to the game", nav_play: "Play", nav_profile: "Profile",
    nav_leaderboard: "Leaderboard", switch_lang: "Deutsch", switch_lang_label: "Auf Deutsch umschalten",
    tips: "Learn with tips",
    welcome: "Play Mau-Mau in four rule systems, against computers or friends.", your_name: "Your name",
    start: "Let's go", rule_system: "Rule system", preset_classic: "Family rules (classic)",
    preset_online: "Online room game", preset_ostfriesland: "East-Frisian tournament",
    preset_colour: "Colour game (UNO-like)", level_random: "easy (random)",
    level_heuristic: "good (club player)", level_strong: "strong (search)", opt_deck: "Deck",
    opt_rounds: "Rounds", deck_french52: "52 cards", deck_skat32: "32 cards (Skat)",
    room: "Room {code}", invite: "Invite link", copy: "Copy link", copied: "Link copied",
    host_start: "Start now (computers take empty seats)", room_open: "Waiting for players",
    room_starting: "Starting…", room_playing: "Match {n} is on", seat: "Seat {seat}",
    empty_seat: "free", wins: "{n} won", you_mark: "(you)", host_mark: "host", cancel: "Cancel",
    waiting: "Searching for a table… {seconds} s", seated: "Seated!",
    ticket_cancelled: "The search ended: {reason}", round: "Round {round}", your_turn: "Your turn",
    turn_of: "{name}'s turn", time_left: "{seconds} s left", cards_n: "{n} cards", card_1: "1 card",
    score: "{n} points", draw_pile: "Draw pile: {n}", pending_draw: "+{n} to take",
    pending_skip: "Skip on the pile", pending_draw4: "+{n} (W+4) to take", owes_call: "missed a call!",
    pressed_last: "pressed last", actions: "Your options", act_draw: "Draw a card",
    act_pass: "Keep the drawn card", act_accept_draw: "Take {n} cards", act_accept_skip: "Sit out",
    act_challenge: "Challenge the W+4", act_catch: "Catch {name}", act_last: "Press “last”",
    act_name_suit: "Name {suit}", play_card: "Play {card}", play_wish: "Play {card} and wish {suit}",
    with_call: " and call {call}", call_mau: "“Mau”", call_maumau: "“Mau-Mau”",
    call_last: "“Letzte Karte”", back: "Back", tip: "Tip: {action}", tip_why: "Why: {reason}",
    match_over: "Match over", winners: "Winner: {names}", you_won: "You won!",
    you_lost: "Not this time.", scores_per_round: "Scores per round", total: "Total",
    xp_earned: "XP earned: {xp}", level_of: "Level {level}", xp_progress: "{xp} / {next} XP",
    rating_change: "Rating: {before} → {after}", waiting_rating: "Counting XP…",
    fair_check: "Fair-deal check",
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
    next_match: "The room starts the next match by itself.", next_match_button: "To the next match",
    new_match: "New match", profile: "Profile", xp: "XP", matches_played: "Matches played: {n}",
    matches_won: "won: {n}", ratings: "Ratings", recent: "Recent matches", season: "Season",
    rank: "Rank", name: "Name", rating: "Rating", played: "Played", leaderboard: "Leaderboard",
    around_you: "Around you", nobody: "Nobody here yet.",
    reconnecting: "Connection lost: reconnecting…", you: "You", bot: "Computer {seat}",
    suit_S: "spades", suit_H: "hearts", suit_D: "diamonds", suit_C: "clubs", suit_R: "red",
    suit_G: "green", suit_B: "blue", suit_Y: "yellow", rank_J: "Jack", rank_Q: "Queen", rank_K: "King",
    rank_A: "Ace", card_french: "{rank} of {suit}", card_colour: "{colour} {symbol}", wild: "Wild",
    wild4: "Wild draw four", sym_skip: "skip", sym_rev: "reverse", "sym_+2": "draw two",
    reason_target: "a score reached the target", reason_rounds: "all rounds played",
    reason_wins: "enough rounds won", reason_single: "single round", reason_tie_break: "deciding round",
    reason_abandoned: "abandoned", when: "When", score_column: "Score", nav_tournaments: "Tournaments",
    tournaments: "Tournaments", tour_status: "Status",
    tour_status_registration: "open for registration", tour_status_playing: "being played",
    tour_status_deciding: "deciding rounds", tour_status_finished: "finished",
    tour_status_cancelled: "cancelled", tour_entrants: "Entrants",
    tour_entrants_n: "{n} of {max} entrants", tour_format: "Format", tour_ranked: "Championship",
    tour_rounds_every: "{rounds} rounds, table changes after every {every}",
    tour_per_table: "up to {n} per table", tour_block: "block {block} of {blocks}",
    tour_register: "Register", tour_withdraw: "Withdraw", tour_registered: "You are registered.",
    tour_withdrawn: "You withdrew.", tour_you_entered: "You are an entrant.",
    tour_you_left: "You left this tournament: your points so far count.",
    tour_play_table: "Play your table (table {table}, block {block})",
    tour_play_decider: "Play your deciding round", tour_live: "Live standings",
    tour_standings: "Standings", tour_final: "Final ranking", tour_points: "Points",
    tour_maumaus: "Mau-Mau", tour_rounds_played: "Rounds", tour_table: "Table", tour_left: "left",
    tour_back: "Back to the tournament", tour_finished_at: "Finished {when}", tour_year: "Year",
    tour_show_year: "Show", tour_unavailable: "The championship table is not available right now.",
    championship: "Championship {year}", champ_points: "Championship points",
    champ_tied: "tied: a deciding game is owed", champ_decider: "tied: the deciding game", menu: "Menu",
    switch_lang_short: "DE", tips_short: "Tips", motion: "Animations",
    tips_on: "Tips are on for your next {n} decisions.", tips_off: "Tips are off.",
    tips_done: "That was your third decision with tips: they are off now. Switch them on again any time.",
    welcome_room: "You are invited to a room. What is your name?",
    front_title: "Hello {name}: pick a table",
    front_lead: "One click deals the cards. Your choices under “More options” are kept in this browser.",
    mode_computer: "Play the computer",
    mode_computer_sub: "You against computers of strength “{level}”.", mode_friend: "Play a friend",
    mode_friend_sub: "A room and its link to send; computers take the seats nobody takes.",
    mode_ranked: "Ranked",
    mode_ranked_sub: "Rated against players of your strength; computers fill the table after a while.",
    players_n: "{n} players", more_options: "More options",
    options_kept: "Kept in this browser for next time.", opt_computers: "Computers at your table",
    computers_1: "1 computer", computers_n: "{n} computers", opt_level: "How well the computers play",
    opt_room_seats: "Seats in the room", opt_room_seats_hint: "The online room game seats at most 4.",
    opt_room_level: "Computers in empty seats play", opt_ranked_seats: "Table size",
    seats_n: "{n} seats", opt_length: "Length", opt_wins: "Match length", opt_teams: "Teams",
    teams_no: "everyone for themselves", teams_yes: "teams of two (4 players)",
    length_one_round: "one round", length_points: "to {n} points",
    length_wins_1: "first to win a round", length_wins: "first to {n} round wins",
    length_rounds_1: "1 round", length_rounds: "{n} rounds", teams_short: "teams of two",
    level_short_random: "easy", level_short_heuristic: "good", level_short_strong: "strong",
    running_title: "Your match is running:", running_back: "Back to the table",
    nowhere_path_title: "Page not found", nowhere_path: "There is no page at {path}.",
    nowhere_match_title: "No such match",
    nowhere_match: "This match link leads nowhere: the match does not exist, or it is over and gone.",
    nowhere_room_title: "No such room",
    nowhere_room: "There is no room with the code {code}. Check the link you were sent.",
    to_front_page: "To the front page",
    room_watching: "This room is playing: you are watching its match.",
    room_full: "This room has no free seat.", room_tally: "Seats and wins", table_label: "Table", seats_label: "Seats",
    watching: "You are watching: no hand of yours at this table.",
    your_turn_suit: "Your turn: name the suit", sits_out_round: "sits out this round",
    sits_out_now: "sits out this turn", left_seat: "left: a computer plays", bot_badge: "BOT · {level}",
    to_play: "to play", score_short: "{n} pts", discard_label: "Discard pile: {card} on top.",
    discard_empty: "Discard pile: empty.", discard_wished: "Wished: {suit}.", wish_short: "wished",
    to_serve_suit: "To serve: {suit}", to_serve_none: "To serve: anything", direction_cw: "↻ clockwise",
    direction_ccw: "↺ counter-clockwise",
    name_starter_suit: "The {card} starts the round: name the suit to serve",
    wish_suit_title: "Which suit do you wish with the {card}?",
    wish_colour_title: "Which colour do you wish with the {card}?",
    drawn_title: "You drew the {card}: play it or keep it", drawn_play: "Play it",
    drawn_keep: "Keep it", skip_title: "You are skipped: this turn you sit out",
    owes_call_me: "you missed a call!", call_word_mau: "Mau", call_word_maumau: "Mau-Mau",
    call_word_last: "Last card",
    call_toggle_hint: "Set the call before you play the card that needs it (M)",
    call_last_hint: "Press it with two cards on your turn, or with one at any time (M)",
    call_on: "The call goes with your next card.", call_off: "No call with your next card.",
    your_hand_1: "Your hand: 1 card", your_hand_n: "Your hand: {n} cards",
    keys_help: "Keys: ← → choose a card, Enter plays it, 1-9 play a card, D draw, P keep the drawn card, A take the penalty, M call, S H D C or R G B Y wish",
    tip_label: "Tip", tip_count: "Learning with tips: {n} of 3 decisions left",
    tip_thinking: "Thinking about a tip…", tip_allowed: "The raised cards fit: {cards}.",
    tip_none_fits: "No card of yours fits now.", history: "History",
    tip_wished: "{suit} is wished: a card of that suit fits, or one the rules let go on any wish.",
    tip_wished_colour: "{suit} is wished: a card of that colour fits, or a wild card.",
    tip_wish_suit: "With the {card} you wish the suit the next player must serve.",
    tip_wish_colour: "With the {card} you wish the colour the next player must serve.",
    tip_wish_most: "You hold most of {suit}: wishing it keeps your next turn easy.",
    tip_wish_most_colour: "You hold the most {suit} cards: wishing {suit} keeps your next turn easy.",
    cannot_play: "The {card} does not fit now.", hit_skip: "skipped", hit_caught: "caught!",
    you_inner: "you", and: "and", h_round: "Round {round}: the {card} is turned up",
    h_call: " – {call}!", h_direction: "play turns around",
    h_reshuffled: "The discard pile is shuffled into a new draw pile",
    h_match_over: "The match is over", h_handed_to_bot: "A computer plays for {who} now",
    h_left: "{who} leaves the table", pr_play: "plays the {card}", pr_play_you: "play the {card}",
    pr_play_wish: "plays the {card} and wishes {suit}",
    pr_play_wish_you: "play the {card} and wish {suit}", pr_draw_one: "draws a card",
    pr_draw_one_you: "draw a card", pr_draw_n: "draws {n} cards", pr_draw_n_you: "draw {n} cards",
    pr_draw_card_you: "draw the {cards}", pr_take: "takes {n} cards", pr_take_you: "take {n} cards",
    pr_draw_caught: "draws {n} for the missed call", pr_draw_caught_you: "draw {n} for the missed call",
    pr_draw_challenge: "draws {n} after the challenge",
    pr_draw_challenge_you: "draw {n} after the challenge", pr_draw_ace: "draws {n} for the ace",
    pr_draw_ace_you: "draw {n} for the ace", pr_keep: "keeps it", pr_keep_you: "keep it",
    pr_skipped: "sits out", pr_skipped_you: "sit out", pr_name_suit: "names {suit}",
    pr_name_suit_you: "name {suit}", pr_call: "calls {call}", pr_call_you: "call {call}",
    pr_catch: "catches {whom} without the call", pr_catch_you: "catch {whom} without the call",
    pr_challenge_bluff: "challenges {whom}: a bluff!",
    pr_challenge_bluff_you: "challenge {whom}: a bluff!",
    pr_challenge_fair: "challenges {whom}: it was allowed",
    pr_challenge_fair_you: "challenge {whom}: it was allowed", pr_timed_out: "runs out of time",
    pr_timed_out_you: "run out of time", pr_round_won: "goes out and wins round {round}",
    pr_round_won_you: "go out and win round {round}!", went_out: "{who} went out with the {card}.",
    you_went_out: "You went out with the {card}.", round_column: "Round", play_again: "Play again",
    no_ratings: "No rated match yet: play ranked to get a rating.", no_matches: "No match played yet.",
    ladder_empty: "Nobody is rated in this rule system yet.",
    ladder_unranked: "You are not on this ladder yet: a ranked match puts you there.",
    ladder_kind: "Ladder", ladder_people: "People", ladder_bots: "Bots",
    ladder_bots_hint: "Bots and people never share a ladder: bots are rated among bots.",
    tour_none: "No tournament yet. Organizers announce tournaments here; open one to register while registration is open.",
    champ_none: "No championship points in {year} yet: they come with the places of finished ranked tournaments.",
    tour_year_label: "Championship of the year", tour_join: "Register",
    tour_join_label: "Register for {name}",
  },
  de: {
    title: "Mau-Mau", skip: "Zum Spiel springen", nav_play: "Spielen", nav_profile: "Profil",
    nav_leaderboard: "Bestenliste", switch_lang: "English", switch_lang_label: "Switch to English",
    tips: "Mit Tipps lernen",
    welcome: "Spiele Mau-Mau in vier Regelwerken, gegen den Computer oder mit Freunden.",
    your_name: "Dein Name", start: "Los geht's", rule_system: "Regelwerk",
    preset_classic: "Familienregeln (klassisch)", preset_online: "Online-Raumspiel",
    preset_ostfriesland: "Ostfriesisches Turnier", preset_colour: "Farbenspiel (wie UNO)",
    level_random: "leicht (zufällig)", level_heuristic: "gut (Vereinsspieler)",
    level_strong: "stark (Suche)", opt_deck: "Blatt", opt_rounds: "Runden", deck_french52: "52 Karten",
    deck_skat32: "32 Karten (Skat)", room: "Raum {code}", invite: "Einladungslink",
    copy: "Link kopieren", copied: "Link kopiert",
    host_start: "Jetzt starten (Computer nehmen freie Plätze)", room_open: "Warte auf Mitspieler",
    room_starting: "Startet…", room_playing: "Partie {n} läuft", seat: "Platz {seat}",
    empty_seat: "frei", wins: "{n} gewonnen", you_mark: "(du)", host_mark: "Gastgeber",
    cancel: "Abbrechen", waiting: "Suche einen Tisch… {seconds} s", seated: "Platz gefunden!",
    ticket_cancelled: "Die Suche ist beendet: {reason}", round: "Runde {round}",
    your_turn: "Du bist dran", turn_of: "{name} ist dran", time_left: "noch {seconds} s",
    cards_n: "{n} Karten", card_1: "1 Karte", score: "{n} Punkte", draw_pile: "Stapel: {n}",
    pending_draw: "+{n} zu nehmen", pending_skip: "Aussetzen liegt",
    pending_draw4: "+{n} (W+4) zu nehmen", owes_call: "Ansage vergessen!",
    pressed_last: "hat „letzte“ gedrückt", actions: "Deine Möglichkeiten", act_draw: "Karte ziehen",
    act_pass: "Gezogene Karte behalten", act_accept_draw: "{n} Karten nehmen",
    act_accept_skip: "Aussetzen", act_challenge: "W+4 anzweifeln", act_catch: "{name} erwischen",
    act_last: "„Letzte“ drücken", act_name_suit: "{suit} wünschen", play_card: "{card} spielen",
    play_wish: "{card} spielen und {suit} wünschen", with_call: " und {call} ansagen",
    call_mau: "„Mau“", call_maumau: "„Mau-Mau“", call_last: "„Letzte Karte“", back: "Zurück",
    tip: "Tipp: {action}", tip_why: "Warum: {reason}", match_over: "Partie vorbei",
    winners: "Gewonnen hat: {names}", you_won: "Du hast gewonnen!", you_lost: "Diesmal nicht.",
    scores_per_round: "Punkte je Runde", total: "Summe", xp_earned: "Erfahrung: +{xp} XP",
    level_of: "Stufe {level}", xp_progress: "{xp} / {next} XP",
    rating_change: "Wertung: {before} → {after}", waiting_rating: "XP werden gezählt…",
    fair_check: "Prüfung des fairen Gebens",
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
    next_match: "Der Raum startet die nächste Partie von selbst.",
    next_match_button: "Zur nächsten Partie", new_match: "Neue Partie", profile: "Profil", xp: "XP",
    matches_played: "Partien gespielt: {n}", matches_won: "gewonnen: {n}", ratings: "Wertungen",
    recent: "Letzte Partien", season: "Saison", rank: "Platz", name: "Name", rating: "Wertung",
    played: "Gespielt", leaderboard: "Bestenliste", around_you: "Rund um dich",
    nobody: "Noch niemand da.", reconnecting: "Verbindung verloren: verbinde neu…", you: "Du",
    bot: "Computer {seat}", suit_S: "Pik", suit_H: "Herz", suit_D: "Karo", suit_C: "Kreuz",
    suit_R: "Rot", suit_G: "Grün", suit_B: "Blau", suit_Y: "Gelb", rank_J: "Bube", rank_Q: "Dame",
    rank_K: "König", rank_A: "Ass", card_french: "{suit} {rank}", card_colour: "{colour} {symbol}",
    wild: "Farbwahl", wild4: "Farbwahl +4", sym_skip: "Aussetzen", sym_rev: "Richtungswechsel",
    "sym_+2": "Zieh zwei", reason_target: "Zielpunktzahl erreicht",
    reason_rounds: "alle Runden gespielt", reason_wins: "genug Runden gewonnen",
    reason_single: "eine Runde", reason_tie_break: "Entscheidungsrunde",
    reason_abandoned: "abgebrochen", when: "Wann", score_column: "Punkte", nav_tournaments: "Turniere",
    tournaments: "Turniere", tour_status: "Stand", tour_status_registration: "Anmeldung offen",
    tour_status_playing: "läuft", tour_status_deciding: "Stechen", tour_status_finished: "beendet",
    tour_status_cancelled: "abgesagt", tour_entrants: "Teilnehmer",
    tour_entrants_n: "{n} von {max} Teilnehmern", tour_format: "Modus", tour_ranked: "Meisterschaft",
    tour_rounds_every: "{rounds} Runden, Tischwechsel nach je {every}",
    tour_per_table: "bis zu {n} je Tisch", tour_block: "Block {block} von {blocks}",
    tour_register: "Anmelden", tour_withdraw: "Abmelden", tour_registered: "Du bist angemeldet.",
    tour_withdrawn: "Du hast dich abgemeldet.", tour_you_entered: "Du bist Teilnehmer.",
    tour_you_left: "Du hast das Turnier verlassen: deine bisherigen Punkte zählen.",
    tour_play_table: "An deinen Tisch (Tisch {table}, Block {block})",
    tour_play_decider: "Dein Stechen spielen", tour_live: "Aktueller Stand", tour_standings: "Stand",
    tour_final: "Endstand", tour_points: "Punkte", tour_maumaus: "Mau-Mau",
    tour_rounds_played: "Runden", tour_table: "Tisch", tour_left: "ausgeschieden",
    tour_back: "Zurück zum Turnier", tour_finished_at: "Beendet {when}", tour_year: "Jahr",
    tour_show_year: "Zeigen",
    tour_unavailable: "Die Meisterschaftstabelle ist gerade nicht erreichbar.",
    championship: "Meisterschaft {year}", champ_points: "Meisterschaftspunkte",
    champ_tied: "punktgleich: ein Stechen steht aus", champ_decider: "punktgleich: das Stechen",
    menu: "Menü", switch_lang_short: "EN", tips_short: "Tipps", motion: "Animationen",
    tips_on: "Tipps begleiten deine nächsten {n} Entscheidungen.", tips_off: "Tipps sind aus.",
    tips_done: "Das war deine dritte Entscheidung mit Tipps: sie sind jetzt aus. Du kannst sie jederzeit wieder einschalten.",
    welcome_room: "Du bist in einen Raum eingeladen. Wie heißt du?",
    front_title: "Hallo {name}: such dir einen Tisch aus",
    front_lead: "Ein Klick, und die Karten werden gegeben. Deine Wahl unter „Mehr Optionen“ merkt sich dieser Browser.",
    mode_computer: "Gegen den Computer", mode_computer_sub: "Du gegen Computer der Stärke „{level}“.",
    mode_friend: "Mit Freunden",
    mode_friend_sub: "Ein Raum und sein Link zum Verschicken; freie Plätze übernehmen Computer.",
    mode_ranked: "Rangliste",
    mode_ranked_sub: "Gewertet gegen Spieler deiner Stärke; nach einer Weile füllen Computer den Tisch.",
    players_n: "{n} Spieler", more_options: "Mehr Optionen",
    options_kept: "Bleibt in diesem Browser für das nächste Mal.",
    opt_computers: "Computer an deinem Tisch", computers_1: "1 Computer", computers_n: "{n} Computer",
    opt_level: "Wie gut die Computer spielen", opt_room_seats: "Plätze im Raum",
    opt_room_seats_hint: "Das Online-Raumspiel hat höchstens 4 Plätze.",
    opt_room_level: "Computer auf freien Plätzen spielen", opt_ranked_seats: "Tischgröße",
    seats_n: "{n} Plätze", opt_length: "Länge", opt_wins: "Partielänge", opt_teams: "Teams",
    teams_no: "jeder für sich", teams_yes: "Zweierteams (4 Spieler)", length_one_round: "eine Runde",
    length_points: "bis {n} Punkte", length_wins_1: "wer zuerst eine Runde gewinnt",
    length_wins: "wer zuerst {n} Runden gewinnt", length_rounds_1: "1 Runde",
    length_rounds: "{n} Runden", teams_short: "Zweierteams", level_short_random: "leicht",
    level_short_heuristic: "gut", level_short_strong: "stark", running_title: "Deine Partie läuft:",
    running_back: "Zurück an den Tisch", nowhere_path_title: "Seite nicht gefunden",
    nowhere_path: "Unter {path} gibt es keine Seite.",
    nowhere_match_title: "Diese Partie gibt es nicht",
    nowhere_match: "Dieser Link führt zu keiner Partie: es gibt sie nicht, oder sie ist vorbei und gelöscht.",
    nowhere_room_title: "Diesen Raum gibt es nicht",
    nowhere_room: "Es gibt keinen Raum mit dem Code {code}. Prüf den Link, den du bekommen hast.",
    to_front_page: "Zur Startseite",
    room_watching: "Dieser Raum spielt gerade: du schaust der Partie zu.",
    room_full: "Dieser Raum hat keinen freien Platz.", room_tally: "Plätze und Siege", table_label: "Spieltisch", seats_label: "Plätze",
    watching: "Du schaust zu: an diesem Tisch hast du keine Karten.",
    your_turn_suit: "Du bist dran: wünsch dir eine Farbe", sits_out_round: "setzt diese Runde aus",
    sits_out_now: "setzt diesen Zug aus", left_seat: "gegangen: ein Computer spielt",
    bot_badge: "BOT · {level}", to_play: "ist dran", score_short: "{n} P.",
    discard_label: "Ablagestapel: oben liegt {card}.", discard_empty: "Ablagestapel: leer.",
    discard_wished: "Gewünscht: {suit}.", wish_short: "Wunsch", to_serve_suit: "Zu bedienen: {suit}",
    to_serve_none: "Zu bedienen: alles", direction_cw: "↻ im Uhrzeigersinn",
    direction_ccw: "↺ gegen den Uhrzeigersinn",
    name_starter_suit: "{card} eröffnet die Runde: wünsch dir die Farbe",
    wish_suit_title: "Welche Farbe wünschst du dir mit {card}?",
    wish_colour_title: "Welche Farbe wünschst du dir mit {card}?",
    drawn_title: "Du hast {card} gezogen: ausspielen oder behalten", drawn_play: "Ausspielen",
    drawn_keep: "Behalten", skip_title: "Du wirst übersprungen: diesen Zug setzt du aus",
    owes_call_me: "du hast die Ansage vergessen!", call_word_mau: "Mau", call_word_maumau: "Mau-Mau",
    call_word_last: "Letzte Karte",
    call_toggle_hint: "Die Ansage vor der Karte setzen, die sie braucht (M)",
    call_last_hint: "Mit zwei Karten in deinem Zug drücken oder mit einer jederzeit (M)",
    call_on: "Die Ansage geht mit deiner nächsten Karte.",
    call_off: "Keine Ansage mit deiner nächsten Karte.", your_hand_1: "Deine Hand: 1 Karte",
    your_hand_n: "Deine Hand: {n} Karten",
    keys_help: "Tasten: ← → Karte wählen, Enter spielt sie, 1-9 spielen eine Karte, D ziehen, P gezogene Karte behalten, A Strafe nehmen, M Ansage, S H D C oder R G B Y wünschen",
    tip_label: "Tipp", tip_count: "Lernen mit Tipps: noch {n} von 3 Entscheidungen",
    tip_thinking: "Ein Tipp wird überlegt…",
    tip_allowed: "Diese Karten passen (hochgestellt): {cards}.",
    tip_none_fits: "Gerade passt keine deiner Karten.", history: "Verlauf",
    tip_wished: "{suit} ist gewünscht: eine Karte dieser Farbe passt, oder eine, die die Regeln auf jeden Wunsch erlauben.",
    tip_wished_colour: "{suit} ist gewünscht: eine Karte dieser Farbe passt, oder eine Farbwahlkarte.",
    tip_wish_suit: "Mit {card} wünschst du die Farbe, die der Nächste bedienen muss.",
    tip_wish_colour: "Mit {card} wünschst du die Farbe, die der Nächste bedienen muss.",
    tip_wish_most: "Von {suit} hast du am meisten: wünsch sie, dann fällt dir dein nächster Zug leicht.",
    tip_wish_most_colour: "Von {suit} hast du am meisten: wünsch sie, dann fällt dir dein nächster Zug leicht.",
    cannot_play: "{card} passt gerade nicht.", hit_skip: "setzt aus", hit_caught: "erwischt!",
    you_inner: "du", and: "und", h_round: "Runde {round}: {card} wird aufgedeckt", h_call: " – {call}!",
    h_direction: "die Richtung wechselt",
    h_reshuffled: "Der Ablagestapel wird zum neuen Stapel gemischt",
    h_match_over: "Die Partie ist vorbei", h_handed_to_bot: "Für {who} spielt jetzt ein Computer",
    h_left: "{who} verlässt den Tisch", pr_play: "spielt {card}", pr_play_you: "spielst {card}",
    pr_play_wish: "spielt {card} und wünscht {suit}",
    pr_play_wish_you: "spielst {card} und wünschst {suit}", pr_draw_one: "zieht eine Karte",
    pr_draw_one_you: "ziehst eine Karte", pr_draw_n: "zieht {n} Karten",
    pr_draw_n_you: "ziehst {n} Karten", pr_draw_card_you: "ziehst {cards}", pr_take: "nimmt {n} Karten",
    pr_take_you: "nimmst {n} Karten", pr_draw_caught: "zieht {n} für die vergessene Ansage",
    pr_draw_caught_you: "ziehst {n} für die vergessene Ansage",
    pr_draw_challenge: "zieht {n} nach dem Anzweifeln",
    pr_draw_challenge_you: "ziehst {n} nach dem Anzweifeln", pr_draw_ace: "zieht {n} für das Ass",
    pr_draw_ace_you: "ziehst {n} für das Ass", pr_keep: "behält sie", pr_keep_you: "behältst sie",
    pr_skipped: "setzt aus", pr_skipped_you: "setzt aus", pr_name_suit: "wünscht {suit}",
    pr_name_suit_you: "wünschst {suit}", pr_call: "sagt {call}", pr_call_you: "sagst {call}",
    pr_catch: "erwischt {whom} ohne Ansage", pr_catch_you: "erwischst {whom} ohne Ansage",
    pr_challenge_bluff: "zweifelt bei {whom} an: geblufft!",
    pr_challenge_bluff_you: "zweifelst bei {whom} an: geblufft!",
    pr_challenge_fair: "zweifelt bei {whom} an: war erlaubt",
    pr_challenge_fair_you: "zweifelst bei {whom} an: war erlaubt",
    pr_timed_out: "überschreitet die Zeit", pr_timed_out_you: "überschreitest die Zeit",
    pr_round_won: "ist raus und gewinnt Runde {round}",
    pr_round_won_you: "bist raus und gewinnst Runde {round}!",
    went_out: "{who} ist mit {card} rausgegangen.", you_went_out: "Du bist mit {card} rausgegangen.",
    round_column: "Runde", play_again: "Noch einmal",
    no_ratings: "Noch keine gewertete Partie: spiel Rangliste für eine Wertung.",
    no_matches: "Noch keine Partie gespielt.",
    ladder_empty: "In diesem Regelwerk hat noch niemand eine Wertung.",
    ladder_unranked: "Du stehst noch nicht in dieser Rangliste: eine Ranglistenpartie bringt dich hinein.",
    ladder_kind: "Rangliste", ladder_people: "Menschen", ladder_bots: "Bots",
    ladder_bots_hint: "Bots und Menschen stehen nie in derselben Rangliste: Bots werden unter Bots gewertet.",
    tour_none: "Noch kein Turnier. Veranstalter kündigen Turniere hier an; öffne eines, um dich anzumelden, solange die Anmeldung offen ist.",
    champ_none: "{year} gibt es noch keine Meisterschaftspunkte: sie kommen mit den Plätzen beendeter gewerteter Turniere.",
    tour_year_label: "Meisterschaft des Jahres", tour_join: "Anmelden",
    tour_join_label: "Für {name} anmelden",
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

export function presetName(preset) {
  const key = `preset_${preset}`;
  return t(key) === key ? preset : t(key);
}

// A bot level in words: "good", or with `long` "good (club player)".
export function levelName(level, long = false) {
  const key = long ? `level_${level}` : `level_short_${level}`;
  return t(key) === key ? level : t(key);
}

// A ruleset's text form in words: "classic deck=skat32 target=50" is "Family rules (classic) ·
// 32 cards (Skat) · to 50 points" (with `short`, without the rule system's name). An option left
// out reads as the rule system's default.
export function rulesetName(text, { short = false } = {}) {
  const [preset, ...rest] = (text || "").trim().split(/\s+/);
  const options = Object.fromEntries(rest.map((o) => o.split("=")));
  const parts = [];
  const length = (target, fallback) => {
    const n = target ?? fallback;
    return n === "0" ? t("length_one_round") : t("length_points", { n });
  };
  if (preset === "classic") {
    parts.push(t(`deck_${options.deck || "french52"}`), length(options.target, "100"));
  } else if (preset === "online") {
    const wins = options.wins || "1";
    parts.push(t("deck_skat32"), wins === "1" ? t("length_wins_1") : t("length_wins", { n: wins }));
  } else if (preset === "ostfriesland") {
    const rounds = options.rounds || "5";
    parts.push(t("deck_skat32"), rounds === "1" ? t("length_rounds_1") : t("length_rounds", { n: rounds }));
  } else if (preset === "colour") {
    parts.push(length(options.target, "100"));
    if (options.teams === "true") parts.push(t("teams_short"));
  }
  return (short ? parts : [presetName(preset), ...parts]).join(" · ");
}
