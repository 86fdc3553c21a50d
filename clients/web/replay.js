// The fair-deal replay, in this browser: every shuffle of a match recomputed from the revealed
// deal seed, exactly as the rules core does it with Python's `random` module, and held against
// the cards this player actually saw.
//
// The rules core shuffles with `random.Random(text).shuffle(cards)`:
//   - the deal of round r:      Random(`${seed}/${r}`).shuffle(deck)
//   - a reshuffle of the pile:  Random(`${seed}/${r}/reshuffle/${n}`).shuffle(discardButTop)
//   - the first dealer:         Random(`${seed}/dealer`).randrange(seats)
// So this module carries a faithful port of CPython 3.11's Mersenne Twister (MT19937) with its
// seeding from a str (version 2), getrandbits, _randbelow, shuffle and randrange. Nothing of the
// server's word is taken on trust but the deck's order before shuffling (see deckOrder in
// table.js: fetched once per rule system and kept, never per match).

const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;

// Python's random.Random: the same state, the same numbers, for the same seed.
export class PythonRandom {
  constructor(key) {
    this.mt = new Uint32Array(N);
    this.index = N + 1;
    this.initByArray(key);
  }

  // `random.Random(text)` (version 2 seeding): the text's UTF-8 bytes followed by their
  // SHA-512 digest, read as one big-endian integer, cut into 32-bit words from the least
  // significant end, fed to init_by_array. WebCrypto's digest is asynchronous, hence a factory.
  static async fromString(text) {
    const bytes = new TextEncoder().encode(text);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-512", bytes));
    const all = new Uint8Array(bytes.length + digest.length);
    all.set(bytes);
    all.set(digest, bytes.length);
    let n = 0n;
    for (const byte of all) n = (n << 8n) | BigInt(byte);
    const key = [];
    while (n > 0n) {
      key.push(Number(n & 0xffffffffn));
      n >>= 32n;
    }
    if (!key.length) key.push(0); // int 0 seeds with one zero word, as CPython does
    return new PythonRandom(key);
  }

  initGenrand(seed) {
    const mt = this.mt;
    mt[0] = seed >>> 0;
    for (let i = 1; i < N; i++) {
      const previous = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, previous) + i) >>> 0;
    }
    this.index = N;
  }

  initByArray(key) {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const previous = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(previous, 1664525)) + key[j] + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const previous = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(previous, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
    }
    mt[0] = 0x80000000; // the most significant bit is 1: a non-zero initial state
  }

  // The next 32 random bits (genrand_uint32), refilling the state every 624 draws.
  nextUint32() {
    const mt = this.mt;
    if (this.index >= N) {
      let kk = 0;
      for (; kk < N - M; kk++) {
        const y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
        mt[kk] = mt[kk + M] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      for (; kk < N - 1; kk++) {
        const y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
        mt[kk] = mt[kk + (M - N)] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      const y = (mt[N - 1] & UPPER_MASK) | (mt[0] & LOWER_MASK);
      mt[N - 1] = mt[M - 1] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      this.index = 0;
    }
    let y = mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  // getrandbits(k) for 1 <= k <= 32: the top k bits of one draw (all a shuffle of a few
  // hundred cards needs).
  getrandbits(k) {
    if (k < 1 || k > 32) throw new RangeError("getrandbits: 1 to 32 bits here");
    return this.nextUint32() >>> (32 - k);
  }

  // _randbelow(n): a number in [0, n) by rejection, with n's bit length as Python does.
  randbelow(n) {
    const k = 32 - Math.clz32(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  // randrange(stop) with one argument.
  randrange(stop) {
    if (stop <= 0) throw new RangeError("empty range for randrange");
    return this.randbelow(stop);
  }

  // shuffle(x) in place: Fisher-Yates from the end, as random.shuffle does.
  shuffle(items) {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.randbelow(i + 1);
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }
}

// ---------------------------------------------------------------- the match replayed

const kindOf = (event) => Object.entries(event)[0] || [];

// One mismatch, as an i18n key with its parameters; the first one found ends the replay.
class Mismatch extends Error {
  constructor(key, params) {
    super(key);
    this.key = key;
    this.params = params;
  }
}

const same = (a, b) => a.length === b.length && a.every((card, i) => card === b[i]);

// Replay every shuffle of a match and compare with what `seat` saw. `events` are the match's
// events in order (as the page received them: other seats' draws as counts), `deck` the deck
// order before shuffling and `handSize` the cards dealt to each seat (both for this ruleset and
// table size), `seed` the revealed deal seed. The page's own knowledge does the rest: who deals
// (the first dealer by lot from the seed, then the next seat dealt in), in which order (one card
// at a time from the dealer's left, playing order being clockwise at a deal), that cards come off
// the end of the draw pile, that played cards go on the discard pile, and that an empty draw pile
// is refilled from the discard pile but its top card.
//
// Answers { ok: true, cards } with the number of cards checked, or { ok: false, key, params }
// naming the first card (or count) that does not match: an i18n key ("fair_..._bad") and its
// parameters (cards in their text form).
export async function replayMatch({ events, deck, handSize, seed, seat, seats }) {
  let checked = 0;
  let pile = [];
  let discard = [];
  let round = 0;
  let reshuffles = 0;
  let dealer = null;
  let dealt = null; // the hands the replay deals, by seat
  const take = (count) => pile.splice(Math.max(0, pile.length - count)).reverse();
  try {
    const lot = await PythonRandom.fromString(`${seed}/dealer`);
    let nextDealer = (lot.randrange(seats) - 1 + seats) % seats; // the seat before the first dealer
    for (const event of events) {
      const [kind, body] = kindOf(event);
      if (kind === "round_started") {
        round = body.round;
        reshuffles = 0;
        const active = body.seats && body.seats.length ? body.seats : [...Array(seats).keys()];
        for (let i = 1; i <= seats; i++) {
          const candidate = (nextDealer + i) % seats;
          if (active.includes(candidate)) {
            dealer = candidate;
            break;
          }
        }
        if (body.dealer !== undefined && body.dealer !== dealer) {
          throw new Mismatch("fair_dealer_bad", { round, seat: body.dealer });
        }
        nextDealer = dealer;
        pile = [...deck];
        (await PythonRandom.fromString(`${seed}/${round}`)).shuffle(pile);
        const order = [];
        for (let i = 1; i < seats; i++) {
          const other = (dealer + i) % seats;
          if (active.includes(other)) order.push(other);
        }
        order.push(dealer);
        dealt = new Map(order.map((s) => [s, []]));
        for (let card = 0; card < handSize; card++) for (const s of order) dealt.get(s).push(pile.pop());
        const starter = pile.pop();
        if (starter !== body.starter) throw new Mismatch("fair_starter_bad", { round, card: body.starter, expected: starter });
        checked += 1;
        discard = [starter];
      } else if (kind === "drew" && body.reason === "deal") {
        const hand = dealt && dealt.get(body.seat);
        if (!hand) throw new Mismatch("fair_count_bad", { round });
        if (body.seat === seat) {
          if (!same(hand, body.cards)) throw new Mismatch("fair_deal_bad", { round, cards: body.cards.join(" ") });
          checked += hand.length;
        }
        if (body.count !== hand.length) throw new Mismatch("fair_count_bad", { round });
      } else if (kind === "drew") {
        const cards = take(body.count);
        if (cards.length !== body.count) throw new Mismatch("fair_count_bad", { round });
        if (body.seat === seat) {
          if (!same(cards, body.cards)) {
            throw new Mismatch("fair_draw_bad", { round, cards: body.cards.join(" "), expected_cards: cards.join(" ") });
          }
          checked += cards.length;
        }
      } else if (kind === "played") {
        discard.push(body.card);
      } else if (kind === "reshuffled") {
        // The draw pile ran out in the middle of a draw: every card of the discard pile but its
        // top is shuffled and goes under what is left (the draw in hand takes that first).
        reshuffles += 1;
        const refill = discard.slice(0, -1);
        discard = discard.slice(-1);
        if (refill.length !== body) throw new Mismatch("fair_count_bad", { round }); // its count
        (await PythonRandom.fromString(`${seed}/${round}/reshuffle/${reshuffles}`)).shuffle(refill);
        pile = [...refill, ...pile];
      }
    }
  } catch (error) {
    if (error instanceof Mismatch) return { ok: false, key: error.key, params: error.params };
    throw error;
  }
  return { ok: true, cards: checked };
}
