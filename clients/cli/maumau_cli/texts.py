"""Every text the terminal client shows, in English and German.

Refusals of the rules core come translated from their error codes (``MauMauError.message``);
everything else is here. ``Texts(lang).get(key, **values)`` fills a template, and events are told
with the players' names, "you" being the person at the keyboard:

>>> Texts("de").get("your_move", first=1, last=3, example="7H")
'Dein Zug (1-3, eine Karte wie 7H, t = Tipps, h = Hilfe, q = Ende): '
"""

from __future__ import annotations

import locale
import os
from collections.abc import Mapping, Sequence

from maumau.rules.cards import ALL_CARDS, COLOURS, Card
from maumau.rules.errors import SUIT_NAMES, BadInput
from maumau_sdk import Event, SeatInfo

LANGUAGES = ("en", "de")

TEXTS: Mapping[str, Mapping[str, str]] = {
    "en": {
        "connecting": "Connecting to the platform at {address} ...",
        "no_platform": "No Mau-Mau platform answers at {address}. Start one with `make run`, or "
        "name another one with --address.",
        "failed": "The platform refused: {message}",
        "welcome": "{name}, you play {ruleset} against {against} ({level}). Match {match_id}.",
        "commitment": "The server committed to its secret seed before the deal: {commitment}",
        "round_header": "Round {round}  ·  {ruleset}",
        "top": "Top card: {card}    to match: {suit}",
        "wished": "Wished suit: {suit}",
        "pending_draw": "Penalty on you: take {cards}, or pass it on with a {rank}",
        "pending_draw_other": "Penalty running: {cards} for the next seat that cannot add a {rank}",
        "pending_skip": "Skip on you: sit out, or pass it on with a {rank}",
        "pending_draw4": "{card} on you: take {cards}, or challenge it",
        "drawn": "You drew {card}: play it or keep it.",
        "seats": "Seats:",
        "seat_line": "  {marker} {seat}  {name:<18} {cards:>2} {card_word}   score {score}{extra}",
        "card_word_1": "card ",
        "card_word_n": "cards",
        "owes_call": "   (missed a call: catch!)",
        "owes_call_me": "   (you missed a call)",
        "out_of_round": "   (sits this round out)",
        "hand": "Your hand: {cards}",
        "options": "Your options:",
        "your_move": "Your move ({first}-{last}, a card like {example}, t = tips, h = help, "
        "q = quit): ",
        "your_move_single": "Your move (1, a card like {example}, t = tips, h = help, q = quit): ",
        "which_suit": "Which suit? {choices}: ",
        "no_such_option": "There is no option {number}: choose a number from 1 to {last}.",
        "no_such_suit": "'{text}' is no suit here: choose a number from 1 to {last} or a letter "
        "({letters}).",
        "help": "Type the number of an option, or an action as text: a card (7H, 10S, JD:S for a "
        "Jack wishing spades, 7H!mau to call Mau), draw, pass, accept, challenge, catch:2, "
        "call:last. t shows tips, q leaves the match (a bot takes your seat).",
        "tips_unavailable": "Tips are not available (no bot service answers at {address}).",
        "tips": "Tips:",
        "tip_line": "  {action:<10} {reason}",
        "leaving": "You leave the match; a bot plays your seat from now on.",
        "interrupted": "Interrupted: you leave the match; a bot plays your seat from now on.",
        "waiting": "Waiting for the others ...",
        "play": "play {card}",
        "play_call": "play {card} and call {call}",
        "play_wish": "play {card} and name a suit",
        "play_wish_call": "play {card}, name a suit and call {call}",
        "play_plain_jack": "play {card} without a wish",
        "draw": "draw a card",
        "pass": "keep the drawn card (pass)",
        "accept_draw": "take {cards}",
        "accept_skip": "sit out",
        "challenge": "challenge the {card}",
        "catch": "catch {name}: the call was missed",
        "call_last": "press 'last card'",
        "name_suit": "name {suit} for the starter",
        "match_over": "Match over ({reason}). Winner: {winners}",
        "final_scores": "Final scores: {scores}",
        "you_won": "Well played, you won!",
        "you_lost": "Better luck next time.",
        "checking": "Checking the fairness of the deal ...",
        "check_commitment_ok": "  [ok] the revealed server seed matches the commitment "
        "published before the deal",
        "check_commitment_bad": "  [FAILED] the revealed server seed does NOT match the commitment",
        "check_nonce_ok": "  [ok] your own random nonce went into the deal seed",
        "check_nonce_bad": "  [FAILED] your nonce is not the one in the deal seed",
        "check_first_ok": "  [ok] your first hand is exactly what the rules core deals from "
        "that seed",
        "check_first_bad": "  [FAILED] your first hand is not what the seed deals",
        "check_replay_ok": "  [ok] replayed the whole match from the seed: every deal and "
        "draw you saw ({rounds}, {steps}) comes out the same",
        "check_replay_bad": "  [FAILED] the replay does not match: {problem}",
        "fair": "Verified: the deal was fair.",
        "unfair": "Warning: the deal could NOT be verified.",
        "no_seed": "The server did not reveal its seed: the deal cannot be verified.",
        # reasons a match ends
        "reason_target": "a score reached the target",
        "reason_rounds": "all rounds played",
        "reason_wins": "enough rounds won",
        "reason_single": "single round",
        "reason_tie_break": "deciding round",
        "reason_abandoned": "abandoned",
        # the log of events
        "you": "you",
        "you_obj": "you",
        "you_dat": "you",
        "and": " and ",
        "computer": "Computer {seat}",
        "calls_mau": "'Mau!'",
        "calls_maumau": "'Mau-Mau!'",
        "calls_last": "'Last card!'",
        "ev_joined": "{who} sits down at seat {seat}",
        "ev_started": "The match starts.",
        "ev_round": "--- Round {round}: {who} deals, starter {card} ---",
        "ev_round_me": "--- Round {round}: you deal, starter {card} ---",
        "ev_dealt_me": "You are dealt: {cards}",
        "ev_draw": "{who} draws a card",
        "ev_draw_me": "You draw {cards}",
        "ev_penalty": "{who} takes {penalty}",
        "ev_penalty_me": "You take {penalty}: {cards}",
        "ev_caught_draw": "{who} draws {count} for the missed call",
        "ev_caught_draw_me": "You draw {count} for the missed call: {cards}",
        "ev_challenge_draw": "{who} draws {count} after the challenge",
        "ev_challenge_draw_me": "You draw {count} after the challenge: {cards}",
        "ev_ace_draw": "{who} draws {count} for the ace",
        "ev_ace_draw_me": "You draw {count} for the ace: {cards}",
        "ev_played": "{who} plays {card}",
        "ev_played_me": "You play {card}",
        "ev_wish": " and wishes {suit}",
        "ev_wish_me": " and wish {suit}",
        "ev_call": " - {call}",
        "ev_suit_named": "{who} names {suit} for the starter",
        "ev_suit_named_me": "You name {suit} for the starter",
        "ev_called": "{who} calls {call}",
        "ev_called_me": "You call {call}",
        "ev_skipped": "{who} sits out",
        "ev_skipped_me": "You sit out",
        "ev_clockwise": "Play turns clockwise",
        "ev_counter": "Play turns counter-clockwise",
        "ev_caught": "{by} catches {whom} without {call}",
        "ev_caught_me": "You catch {whom} without {call}",
        "ev_bluff": "{by} challenges the W+4 of {whom}: a bluff!",
        "ev_bluff_me": "You challenge the W+4 of {whom}: a bluff!",
        "ev_no_bluff": "{by} challenges the W+4 of {whom}: it was legal",
        "ev_no_bluff_me": "You challenge the W+4 of {whom}: it was legal",
        "ev_passed": "{who} keeps the drawn card",
        "ev_passed_me": "You keep the drawn card",
        "ev_reshuffled": "The discard pile becomes a new draw pile of {cards}",
        "ev_round_over_out": "Round {round}: {who} goes out. Points {points}, scores {totals}",
        "ev_round_over_out_me": "Round {round}: you go out! Points {points}, scores {totals}",
        "ev_round_over_mau_me": "Round {round}: you finish with Mau. Points {points}, scores "
        "{totals}",
        "ev_round_over_maumau_me": "Round {round}: you finish Mau-Mau! Points {points}, scores "
        "{totals}",
        "ev_round_over_mau": "Round {round}: {who} finishes with Mau. Points {points}, scores "
        "{totals}",
        "ev_round_over_maumau": "Round {round}: {who} finishes Mau-Mau! Points {points}, "
        "scores {totals}",
        "ev_timed_out": "{who} ran out of time",
        "ev_timed_out_me": "You ran out of time",
        "ev_left_me": "You left the match",
        "ev_handed_to_bot": "A bot plays for {who} from now on",
        "ev_left": "{who} left the match",
        "ev_seed": "The server reveals its seed.",
        # queue, rooms, ladder, profile
        "party_header": "Party {party_id}:",
        "party_member": "  {name} ({player_id}){lead}",
        "party_leader": " - leads",
        "party_invited": "  invited: {name} ({player_id}), {seconds} s left to accept",
        "party_queue_hint": "Queue everyone who accepted with `maumau queue --party`.",
        "party_left": "You left the party.",
        "party_none": "You are in no party: `maumau party invite PLAYER_ID` starts one, "
        "`maumau party accept` takes up an invitation.",
        "queued": "Queued for {queue} (ticket {ticket_id}); q and Enter, or Ctrl-C, cancel.",
        "searching": "Searching ... {seconds}",
        "seated": "Seated: seat {seat} of {table} at match {match_id} ({bots}).",
        "ticket_over": "The ticket ended: {state} ({reason}).",
        "ticket_cancelled": "You left the queue.",
        "room_created": "Room {code} is open: others join with `maumau room join {code}` "
        "({link}). Type s and Enter to start (bots fill free seats), q to quit.",
        "room_joined": "You sit at seat {seat} of room {code} ({ruleset}).",
        "room_seats": "Seats: {seats}",
        "room_free": "free",
        "room_wins": "{name} ({wins})",
        "room_match": "Match {number} of room {code} starts.",
        "room_next": "The room's next match starts when everyone is ready; q quits.",
        "room_left": "You leave the room.",
        "ladder_header": "{preset}, season {season}: {players}",
        "ladder_header_bots": "{preset}, season {season}, the bots' ladder: {players}",
        "ladder_line": "{marker}{rank:>4}. {name:<24} {rating:>5}  {played}, {won} won",
        "ladder_empty": "Nobody is on this ladder yet: ranked matches put players on it.",
        "not_on_ladder": "You are not on the {preset} ladder yet: play a ranked match "
        "(maumau queue --rules {preset} --ranked).",
        "profile_header": "{name} ({player_id})",
        "profile_level": "Level {level}, {xp} XP ({next} XP to the next level)",
        "profile_matches": "{played}, {won} won, {left} left",
        "profile_rating": "  {preset} {season}: rating {rating}, rank {rank}, {played}",
        "profile_recent": "Recent matches:",
        "profile_match": "  {ruleset:<24} {mode:<7} place {place}, {xp} XP{won}",
        "profile_won": ", won",
        "ranked": "ranked",
        "casual": "casual",
        "password_prompt": "Password: ",
        "new_password_prompt": "New password (at least 8 characters): ",
        "current_password_prompt": "Current password (none: press Enter): ",
        "logged_in": "Signed in as {username} ({player_id}). Every command now plays as you.",
        "logged_out": "{username} is signed out on this device.",
        "not_logged_in": "This device is not signed in to an account (sign in with "
        "`maumau login NAME`).",
        "signed_out": "The session of {username} on this device has ended: sign in again with "
        "`maumau login {username}`.",
        "account_header": "{username} ({player_id})",
        "account_password": "  password: {state}",
        "account_passkey": "  passkey: {name} (last used {used})",
        "account_provider": "  signs in with {provider}: {email}",
        "yes": "yes",
        "no": "no",
        "claimed": "You are now the account {username} ({player_id}), with your history, XP and "
        "ratings.",
        "password_set": "The password is set.",
        "session_line": "  {session_id}  {device:<32} {how:<14} since {since}{current}",
        "session_current": "  (this device)",
        "signed_out_everywhere": "Every other device is signed out; this one has a new session.",
        "signed_out_one": "Session {session_id} is signed out.",
        "sign_out_which": "name a session id (see `maumau account sessions`) or give --everywhere",
        "token_line": "  {token_id}  {name:<24} {scope:<5} until {until}",
        "token_created": "Token {token_id} (until {until}); it is shown this once, keep it safe:",
        "token_revoked": "Token {token_id} is revoked.",
        "exported": "Everything kept about you is in {path}.",
        "delete_confirm": "Deleting {username} ends every session at once and cannot be undone. "
        "Type the username to confirm: ",
        "deleted": "The account is deleted.",
    },
    "de": {
        "connecting": "Verbinde mit der Plattform unter {address} ...",
        "no_platform": "Unter {address} antwortet keine Mau-Mau-Plattform. Starte eine mit "
        "`make run` oder nenne mit --address eine andere.",
        "failed": "Die Plattform lehnt ab: {message}",
        "welcome": "{name}, du spielst {ruleset} gegen {against} ({level}). Partie {match_id}.",
        "commitment": "Der Server hat sich vor dem Geben auf seinen geheimen Seed festgelegt: "
        "{commitment}",
        "round_header": "Runde {round}  ·  {ruleset}",
        "top": "Oben liegt: {card}    zu bedienen: {suit}",
        "wished": "Gewünschte Farbe: {suit}",
        "pending_draw": "Strafe für dich: nimm {cards} oder gib sie mit einer {rank} weiter",
        "pending_draw_other": "Strafe läuft: {cards} für den nächsten Platz ohne {rank}",
        "pending_skip": "Aussetzen für dich: setze aus oder gib es mit einer {rank} weiter",
        "pending_draw4": "{card} gegen dich: nimm {cards} oder zweifle sie an",
        "drawn": "Du hast {card} gezogen: spiele sie oder behalte sie.",
        "seats": "Plätze:",
        "seat_line": "  {marker} {seat}  {name:<18} {cards:>2} {card_word}   Punkte {score}{extra}",
        "card_word_1": "Karte ",
        "card_word_n": "Karten",
        "owes_call": "   (Ansage vergessen: erwischen!)",
        "owes_call_me": "   (du hast eine Ansage vergessen)",
        "out_of_round": "   (setzt diese Runde aus)",
        "hand": "Deine Hand: {cards}",
        "options": "Deine Möglichkeiten:",
        "your_move": "Dein Zug ({first}-{last}, eine Karte wie {example}, t = Tipps, h = Hilfe, "
        "q = Ende): ",
        "your_move_single": "Dein Zug (1, eine Karte wie {example}, t = Tipps, h = Hilfe, "
        "q = Ende): ",
        "which_suit": "Welche Farbe? {choices}: ",
        "no_such_option": "Eine Möglichkeit {number} gibt es nicht: wähle eine Zahl von 1 bis "
        "{last}.",
        "no_such_suit": "'{text}' ist hier keine Farbe: wähle eine Zahl von 1 bis {last} oder "
        "einen Buchstaben ({letters}).",
        "help": "Tippe die Nummer einer Möglichkeit oder einen Zug als Text: eine Karte (7H, "
        "10S, JD:S für einen Buben, der Pik wünscht, 7H!mau, um Mau anzusagen), draw, pass, "
        "accept, challenge, catch:2, call:last. t zeigt Tipps, q verlässt die Partie (ein Bot "
        "übernimmt deinen Platz).",
        "tips_unavailable": "Tipps sind nicht verfügbar (unter {address} antwortet kein "
        "Bot-Dienst).",
        "tips": "Tipps:",
        "tip_line": "  {action:<10} {reason}",
        "leaving": "Du verlässt die Partie; ab jetzt spielt ein Bot deinen Platz.",
        "interrupted": "Unterbrochen: du verlässt die Partie; ab jetzt spielt ein Bot deinen "
        "Platz.",
        "waiting": "Warte auf die anderen ...",
        "play": "{card} spielen",
        "play_call": "{card} spielen und {call} ansagen",
        "play_wish": "{card} spielen und eine Farbe wünschen",
        "play_wish_call": "{card} spielen, eine Farbe wünschen und {call} ansagen",
        "play_plain_jack": "{card} ohne Wunsch spielen",
        "draw": "eine Karte ziehen",
        "pass": "die gezogene Karte behalten (passen)",
        "accept_draw": "{cards} nehmen",
        "accept_skip": "aussetzen",
        "challenge": "die {card} anzweifeln",
        "catch": "{name} erwischen: Ansage vergessen",
        "call_last": "'Letzte Karte' drücken",
        "name_suit": "{suit} für die Startkarte wünschen",
        "match_over": "Partie vorbei ({reason}). Gewinner: {winners}",
        "final_scores": "Endstand: {scores}",
        "you_won": "Gut gespielt, du hast gewonnen!",
        "you_lost": "Viel Glück beim nächsten Mal.",
        "checking": "Prüfe, ob fair gegeben wurde ...",
        "check_commitment_ok": "  [ok] der enthüllte Server-Seed passt zur vor dem Geben "
        "veröffentlichten Festlegung",
        "check_commitment_bad": "  [FEHLER] der enthüllte Server-Seed passt NICHT zur Festlegung",
        "check_nonce_ok": "  [ok] deine eigene Zufallszahl (Nonce) steckt im Geber-Seed",
        "check_nonce_bad": "  [FEHLER] deine Nonce ist nicht die im Geber-Seed",
        "check_first_ok": "  [ok] deine erste Hand ist genau die, die das Regelwerk aus diesem "
        "Seed gibt",
        "check_first_bad": "  [FEHLER] deine erste Hand ist nicht die, die der Seed gibt",
        "check_replay_ok": "  [ok] die ganze Partie aus dem Seed nachgespielt: jedes Geben und "
        "Ziehen, das du gesehen hast ({rounds}, {steps}), kommt genauso heraus",
        "check_replay_bad": "  [FEHLER] das Nachspielen passt nicht: {problem}",
        "fair": "Geprüft: es wurde fair gegeben.",
        "unfair": "Achtung: das Geben ließ sich NICHT bestätigen.",
        "no_seed": "Der Server hat seinen Seed nicht enthüllt: das Geben ist nicht prüfbar.",
        "reason_target": "ein Punktestand hat das Ziel erreicht",
        "reason_rounds": "alle Runden gespielt",
        "reason_wins": "genug Runden gewonnen",
        "reason_single": "eine Runde",
        "reason_tie_break": "Entscheidungsrunde",
        "reason_abandoned": "abgebrochen",
        "you": "du",
        "you_obj": "dich",
        "you_dat": "dir",
        "and": " und ",
        "computer": "Computer {seat}",
        "calls_mau": "'Mau!'",
        "calls_maumau": "'Mau-Mau!'",
        "calls_last": "'Letzte Karte!'",
        "ev_joined": "{who} setzt sich an Platz {seat}",
        "ev_started": "Die Partie beginnt.",
        "ev_round": "--- Runde {round}: {who} gibt, Startkarte {card} ---",
        "ev_round_me": "--- Runde {round}: du gibst, Startkarte {card} ---",
        "ev_dealt_me": "Du bekommst: {cards}",
        "ev_draw": "{who} zieht eine Karte",
        "ev_draw_me": "Du ziehst {cards}",
        "ev_penalty": "{who} nimmt {penalty}",
        "ev_penalty_me": "Du nimmst {penalty}: {cards}",
        "ev_caught_draw": "{who} zieht {count} für die vergessene Ansage",
        "ev_caught_draw_me": "Du ziehst {count} für die vergessene Ansage: {cards}",
        "ev_challenge_draw": "{who} zieht {count} nach dem Anzweifeln",
        "ev_challenge_draw_me": "Du ziehst {count} nach dem Anzweifeln: {cards}",
        "ev_ace_draw": "{who} zieht {count} wegen des Asses",
        "ev_ace_draw_me": "Du ziehst {count} wegen des Asses: {cards}",
        "ev_played": "{who} spielt {card}",
        "ev_played_me": "Du spielst {card}",
        "ev_wish": " und wünscht {suit}",
        "ev_wish_me": " und wünschst {suit}",
        "ev_call": " - {call}",
        "ev_suit_named": "{who} wünscht {suit} für die Startkarte",
        "ev_suit_named_me": "Du wünschst {suit} für die Startkarte",
        "ev_called": "{who} sagt {call}",
        "ev_called_me": "Du sagst {call}",
        "ev_skipped": "{who} setzt aus",
        "ev_skipped_me": "Du setzt aus",
        "ev_clockwise": "Es geht im Uhrzeigersinn weiter",
        "ev_counter": "Es geht gegen den Uhrzeigersinn weiter",
        "ev_caught": "{by} erwischt {whom} ohne {call}",
        "ev_caught_me": "Du erwischst {whom} ohne {call}",
        "ev_bluff": "{by} zweifelt die W+4 von {whom} an: geblufft!",
        "ev_bluff_me": "Du zweifelst die W+4 von {whom} an: geblufft!",
        "ev_no_bluff": "{by} zweifelt die W+4 von {whom} an: sie war erlaubt",
        "ev_no_bluff_me": "Du zweifelst die W+4 von {whom} an: sie war erlaubt",
        "ev_passed": "{who} behält die gezogene Karte",
        "ev_passed_me": "Du behältst die gezogene Karte",
        "ev_reshuffled": "Der Ablagestapel wird zum neuen Stapel mit {cards}",
        "ev_round_over_out": "Runde {round}: {who} ist draußen. Punkte {points}, Stand {totals}",
        "ev_round_over_out_me": "Runde {round}: du bist draußen! Punkte {points}, Stand {totals}",
        "ev_round_over_mau_me": "Runde {round}: du beendest mit Mau. Punkte {points}, Stand "
        "{totals}",
        "ev_round_over_maumau_me": "Runde {round}: du beendest mit Mau-Mau! Punkte {points}, "
        "Stand {totals}",
        "ev_round_over_mau": "Runde {round}: {who} beendet mit Mau. Punkte {points}, Stand "
        "{totals}",
        "ev_round_over_maumau": "Runde {round}: {who} beendet mit Mau-Mau! Punkte {points}, "
        "Stand {totals}",
        "ev_timed_out": "{who} hat die Zeit überschritten",
        "ev_timed_out_me": "Du hast die Zeit überschritten",
        "ev_left_me": "Du hast die Partie verlassen",
        "ev_handed_to_bot": "Ab jetzt spielt ein Bot für {who}",
        "ev_left": "{who} hat die Partie verlassen",
        "ev_seed": "Der Server enthüllt seinen Seed.",
        "party_header": "Gruppe {party_id}:",
        "party_member": "  {name} ({player_id}){lead}",
        "party_leader": " - führt",
        "party_invited": "  eingeladen: {name} ({player_id}), noch {seconds} s zum Annehmen",
        "party_queue_hint": "Alle, die angenommen haben, reihst du mit `maumau queue --party` ein.",
        "party_left": "Du hast die Gruppe verlassen.",
        "party_none": "Du bist in keiner Gruppe: `maumau party invite SPIELER_ID` gründet eine, "
        "`maumau party accept` nimmt eine Einladung an.",
        "queued": "In der Warteschlange für {queue} (Ticket {ticket_id}); q und Enter oder "
        "Strg-C brechen ab.",
        "searching": "Suche ... {seconds}",
        "seated": "Platz gefunden: Platz {seat} von {table} in Partie {match_id} ({bots}).",
        "ticket_over": "Das Ticket ist beendet: {state} ({reason}).",
        "ticket_cancelled": "Du hast die Warteschlange verlassen.",
        "room_created": "Raum {code} ist offen: andere kommen mit `maumau room join {code}` "
        "dazu ({link}). Tippe s und Enter zum Starten (Bots füllen freie Plätze), q zum Beenden.",
        "room_joined": "Du sitzt an Platz {seat} in Raum {code} ({ruleset}).",
        "room_seats": "Plätze: {seats}",
        "room_free": "frei",
        "room_wins": "{name} ({wins})",
        "room_match": "Partie {number} in Raum {code} beginnt.",
        "room_next": "Die nächste Partie des Raums beginnt, sobald alle bereit sind; q beendet.",
        "room_left": "Du verlässt den Raum.",
        "ladder_header": "{preset}, Saison {season}: {players}",
        "ladder_header_bots": "{preset}, Saison {season}, Rangliste der Bots: {players}",
        "ladder_line": "{marker}{rank:>4}. {name:<24} {rating:>5}  {played}, {won} gewonnen",
        "ladder_empty": "Noch niemand steht in dieser Rangliste: gewertete Partien bringen "
        "Spieler hinein.",
        "not_on_ladder": "Du stehst noch nicht in der Rangliste von {preset}: spiele eine "
        "gewertete Partie (maumau queue --rules {preset} --ranked).",
        "profile_header": "{name} ({player_id})",
        "profile_level": "Stufe {level}, {xp} XP ({next} XP bis zur nächsten Stufe)",
        "profile_matches": "{played}, {won} gewonnen, {left} verlassen",
        "profile_rating": "  {preset} {season}: Wertung {rating}, Rang {rank}, {played}",
        "profile_recent": "Letzte Partien:",
        "profile_match": "  {ruleset:<24} {mode:<9} Platz {place}, {xp} XP{won}",
        "profile_won": ", gewonnen",
        "ranked": "gewertet",
        "casual": "locker",
        "password_prompt": "Passwort: ",
        "new_password_prompt": "Neues Passwort (mindestens 8 Zeichen): ",
        "current_password_prompt": "Bisheriges Passwort (keines: Eingabetaste): ",
        "logged_in": "Angemeldet als {username} ({player_id}). Jeder Befehl spielt jetzt als du.",
        "logged_out": "{username} ist auf diesem Gerät abgemeldet.",
        "not_logged_in": "Dieses Gerät ist bei keinem Konto angemeldet (anmelden mit "
        "`maumau login NAME`).",
        "signed_out": "Die Sitzung von {username} auf diesem Gerät ist beendet: melde dich neu an "
        "mit `maumau login {username}`.",
        "account_header": "{username} ({player_id})",
        "account_password": "  Passwort: {state}",
        "account_passkey": "  Passkey: {name} (zuletzt benutzt {used})",
        "account_provider": "  meldet sich an mit {provider}: {email}",
        "yes": "ja",
        "no": "nein",
        "claimed": "Du bist jetzt das Konto {username} ({player_id}), mit deinem Verlauf, deinen "
        "XP und Wertungen.",
        "password_set": "Das Passwort ist gesetzt.",
        "session_line": "  {session_id}  {device:<32} {how:<14} seit {since}{current}",
        "session_current": "  (dieses Gerät)",
        "signed_out_everywhere": "Alle anderen Geräte sind abgemeldet; dieses hat eine neue "
        "Sitzung.",
        "signed_out_one": "Sitzung {session_id} ist abgemeldet.",
        "sign_out_which": "nenne eine Sitzung (siehe `maumau account sessions`) oder --everywhere",
        "token_line": "  {token_id}  {name:<24} {scope:<5} bis {until}",
        "token_created": "Token {token_id} (bis {until}); er wird nur dieses eine Mal gezeigt, "
        "bewahre ihn sicher auf:",
        "token_revoked": "Token {token_id} ist widerrufen.",
        "exported": "Alles, was über dich gespeichert ist, steht in {path}.",
        "delete_confirm": "Das Löschen von {username} beendet sofort jede Sitzung und lässt sich "
        "nicht rückgängig machen. Gib zur Bestätigung den Benutzernamen ein: ",
        "deleted": "Das Konto ist gelöscht.",
    },
}


NOUNS: Mapping[str, Mapping[str, tuple[str, str]]] = {
    "en": {
        "computer": ("computer", "computers"),
        "card": ("card", "cards"),
        "penalty": ("penalty card", "penalty cards"),
        "round": ("round", "rounds"),
        "move": ("move", "moves"),
        "match": ("match", "matches"),
        "player": ("player", "players"),
        "second": ("second", "seconds"),
    },
    "de": {
        "computer": ("Computer", "Computer"),
        "card": ("Karte", "Karten"),
        "penalty": ("Strafkarte", "Strafkarten"),
        "round": ("Runde", "Runden"),
        "move": ("Zug", "Züge"),
        "match": ("Partie", "Partien"),
        "player": ("Spieler", "Spieler"),
        "second": ("Sekunde", "Sekunden"),
    },
}
"""Singular and plural of the nouns counted in the texts."""

SUIT_SYMBOLS: Mapping[str, str] = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
"""The French suits as the symbols a UTF-8 terminal shows."""

COLOUR_LETTERS: Mapping[str, Mapping[str, str]] = {
    "en": {"R": "R", "G": "G", "B": "B", "Y": "Y"},
    "de": {"R": "Ro", "G": "Gr", "B": "Bl", "Y": "Ge"},
}
"""How colour cards start, per language: German needs two letters, as Grün and Gelb share G."""

COLOUR_RANKS: Mapping[str, Mapping[str, str]] = {
    "en": {"skip": "skip", "rev": "rev", "W": "W", "W+4": "W+4"},
    "de": {"skip": "Aus", "rev": "Dreh", "W": "Wahl", "W+4": "Wahl+4"},
}
"""The colour deck's action cards per language: Aussetzen, Richtungswechsel, Farbwahl."""


def default_language(environ: Mapping[str, str] | None = None) -> str:
    """'de' when the locale is German (LC_ALL, LC_MESSAGES, LANG, then the system's), else 'en'."""
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value:
            return "de" if value.lower().startswith("de") else "en"
    if environ is None:
        system = locale.getlocale()[0] or ""
        if system.lower().startswith("de"):
            return "de"
    return "en"


class Texts:
    """The client's texts in one language, and the event log told with the players' names."""

    def __init__(self, lang: str, *, symbols: bool = False) -> None:
        self.lang = lang if lang in LANGUAGES else "en"
        self.symbols = symbols
        """Whether French suits show as symbols (a UTF-8 terminal not in plain mode)."""
        self._texts = TEXTS[self.lang]
        self._inputs = {self.card(card): card.text for card in ALL_CARDS}
        self._inputs.update({self.card(card).lower(): card.text for card in ALL_CARDS})

    def count(self, noun: str, number: int) -> str:
        """A number with its noun in the right form: '1 bot', '3 bots', '1 Runde'.

        >>> Texts("de").count("round", 1), Texts("de").count("round", 6)
        ('1 Runde', '6 Runden')
        """
        singular, plural = NOUNS[self.lang][noun]
        return f"{number} {singular if number == 1 else plural}"

    # ------------------------------------------------------------------ cards

    def card(self, card: Card | str) -> str:
        """A card as this language and terminal show it.

        >>> Texts("de").card("Gskip"), Texts("de").card("Y+2"), Texts("de").card("W+4")
        ('GrAus', 'Ge+2', 'Wahl+4')
        >>> Texts("en", symbols=True).card("10H")
        '10♥'
        """
        card = Card.parse(card) if isinstance(card, str) else card
        if card.suit in COLOURS or card.suit == "":
            ranks = COLOUR_RANKS[self.lang]
            if card.suit == "":
                return ranks.get(card.rank, card.rank)
            return COLOUR_LETTERS[self.lang][card.suit] + ranks.get(card.rank, card.rank)
        if self.symbols:
            return card.rank + SUIT_SYMBOLS[card.suit]
        return card.text

    def cards(self, cards: Sequence[Card | str]) -> str:
        return " ".join(self.card(card) for card in cards)

    def suit_letter(self, suit: str) -> str:
        """The letter (or symbol) a suit is typed and shown with here: 'H', '♥', 'Gr'."""
        if suit in COLOURS:
            return COLOUR_LETTERS[self.lang][suit]
        return SUIT_SYMBOLS.get(suit, suit) if self.symbols else suit

    def action(self, text: str) -> str:
        """An action's text form with its card and suit shown as :meth:`card` shows them:
        'JD:S!mau' -> 'J♦:♠!mau'."""
        head, sep, tail = text.partition("!")
        card, colon, suit = head.partition(":")
        try:
            shown = self.card(card)
        except BadInput:
            return text
        if colon:
            shown += ":" + self.suit_letter(suit)
        return shown + sep + tail

    def typed(self, text: str) -> str:
        """What the player typed, in the rules core's text form: 'GrAus' -> 'Gskip',
        '10♥' -> '10H', 'Ro7:Ge' stays meaningful as 'R7:Y'. Unknown text is left as it is."""
        head, sep, tail = text.strip().partition("!")
        card, colon, suit = head.partition(":")
        for letter, symbol in SUIT_SYMBOLS.items():
            card = card.replace(symbol, letter)
        card = self._inputs.get(card, self._inputs.get(card.lower(), card))
        if colon:
            suit = self.typed_suit(suit) or suit
        return card + (colon + suit) + sep + tail

    def typed_suit(self, text: str) -> str | None:
        """The suit letter for a typed letter, symbol or name ('Gr', '♥', 'Herz'), else None."""
        wanted = text.strip().lower()
        for suit in (*SUIT_SYMBOLS, *COLOURS):
            shown = {suit.lower(), self.suit_letter(suit).lower(), self.suit(suit).lower()}
            shown.add(SUIT_SYMBOLS.get(suit, suit).lower())
            if wanted in shown:
                return suit
        return None

    def example(self, hand: Sequence[Card]) -> str:
        """A card to show in the prompt: the first of the hand, as the player would type it."""
        return self.card(hand[0]) if hand else self.card("7H")

    def get(self, key: str, **values: object) -> str:
        return self._texts[key].format(**values)

    def suit(self, suit: str) -> str:
        """The suit's or colour's name, e.g. 'hearts' / 'Herz'."""
        return SUIT_NAMES[self.lang].get(suit, suit)

    def call(self, word: str) -> str:
        return self.get(f"calls_{word}") if f"calls_{word}" in self._texts else word

    def reason(self, reason: str) -> str:
        key = f"reason_{reason}"
        return self.get(key) if key in self._texts else reason

    # ------------------------------------------------------------------ names

    def name(self, seat: int, seats: Sequence[SeatInfo], me: int, *, obj: bool = False) -> str:
        """How a seat is called in the log: 'you' for yourself, a player's name, 'Computer 2'."""
        if seat == me:
            return self.get("you_obj" if obj else "you")
        info = next((s for s in seats if s.seat == seat), None)
        if info is None or info.is_bot or not info.name:
            return self.get("computer", seat=seat)
        return info.name

    def _seat_event(
        self, key: str, seat: int, seats: Sequence[SeatInfo], me: int, **values: object
    ) -> str:
        own = f"{key}_me"
        if seat == me and own in self._texts:
            return self.get(own, **values)
        return self.get(key, who=self.name(seat, seats, me), **values)

    # ------------------------------------------------------------------ the log

    def describe(self, event: Event, seats: Sequence[SeatInfo], me: int) -> str | None:
        """One log line for an event, or None for events not worth a line (turn changes, the
        others' deals)."""
        data: object = event.data
        e = event.pb
        kind = event.kind
        if kind == "seat_joined":
            if e.seat_joined.seat == me:
                return None
            return self.get("ev_joined", who=e.seat_joined.name, seat=e.seat_joined.seat)
        if kind == "match_started":
            return self.get("ev_started")
        if kind == "round_started":
            r = e.round_started
            return self._seat_event(
                "ev_round", r.dealer, seats, me, round=r.round, card=self.card(r.starter)
            )
        if kind == "drew":
            return self._drew(e.drew, seats, me)
        if kind == "played":
            p = e.played
            mine = p.seat == me
            text = self._seat_event("ev_played", p.seat, seats, me, card=self.card(p.card))
            if p.suit:
                text += self.get("ev_wish_me" if mine else "ev_wish", suit=self.suit(p.suit))
            if p.call:
                text += self.get("ev_call", call=self.call(p.call))
            return text
        if kind == "suit_named":
            s = e.suit_named
            return self._seat_event("ev_suit_named", s.seat, seats, me, suit=self.suit(s.suit))
        if kind == "called":
            c = e.called
            return self._seat_event("ev_called", c.seat, seats, me, call=self.call(c.word))
        if kind in ("skipped", "passed", "timed_out", "handed_to_bot", "left"):
            seat = getattr(data, "seat", -1)
            if kind == "handed_to_bot":
                return self.get("ev_handed_to_bot", who=self.name(seat, seats, me, obj=True))
            return self._seat_event(f"ev_{kind}", seat, seats, me)
        if kind == "direction_changed":
            return self.get("ev_clockwise" if e.direction_changed > 0 else "ev_counter")
        if kind == "caught":
            c2 = e.caught
            return self._by_event(
                "ev_caught",
                c2.by,
                seats,
                me,
                whom=self.name(c2.seat, seats, me, obj=True),
                call=self.call(c2.word),
            )
        if kind == "challenged":
            c3 = e.challenged
            whom = self.get("you_dat") if c3.seat == me else self.name(c3.seat, seats, me)
            return self._by_event(
                "ev_bluff" if c3.bluff else "ev_no_bluff", c3.by, seats, me, whom=whom
            )
        if kind == "reshuffled":
            return self.get("ev_reshuffled", cards=self.count("card", e.reshuffled))
        if kind == "round_over":
            r2 = e.round_over
            return self._seat_event(
                f"ev_round_over_{r2.finish}",
                r2.winner,
                seats,
                me,
                round=r2.round,
                points=" ".join(map(str, r2.points)),
                totals=" ".join(map(str, r2.totals)),
            )
        if kind == "seed_revealed":
            return self.get("ev_seed")
        return None  # turn_started, match_over (told at the end)

    def _by_event(
        self, key: str, by: int, seats: Sequence[SeatInfo], me: int, **values: object
    ) -> str:
        if by == me:
            return self.get(f"{key}_me", **values)
        return self.get(key, by=self.name(by, seats, me), **values)

    def names(self, seats_: Sequence[int], seats: Sequence[SeatInfo], me: int) -> str:
        """Several seats' names joined: 'Computer 1 and you'."""
        return self.get("and").join(self.name(s, seats, me) for s in seats_)

    def _drew(self, drew: object, seats: Sequence[SeatInfo], me: int) -> str | None:
        seat, count, reason = drew.seat, drew.count, drew.reason  # type: ignore[attr-defined]
        cards = self.cards(drew.cards)  # type: ignore[attr-defined]
        if reason == "deal":
            return self.get("ev_dealt_me", cards=cards) if seat == me else None
        key = {
            "draw": "ev_draw",
            "penalty": "ev_penalty",
            "caught": "ev_caught_draw",
            "challenge": "ev_challenge_draw",
            "ace": "ev_ace_draw",
        }.get(reason, "ev_draw")
        return self._seat_event(
            key, seat, seats, me, count=count, cards=cards, penalty=self.count("penalty", count)
        )
