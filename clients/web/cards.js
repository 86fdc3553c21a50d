// Card faces and backs as SVG: the French deck (corner index, pips or a large suit, framed court
// cards), the Skat deck (the same faces in the four colours of the German tournament deck, with
// German court letters in German), and the colour deck (numbers, skip, reverse, +2, wild, wild
// +4) in a colour-blind-safe palette with a shape on every card besides its colour.
//
// A face is an SVG string, built once per card, deck and language and kept; the suits, colour
// shapes and the back's pattern are symbols of one hidden sprite in the page (installSprite).

import { cardName, cardParts, lang } from "./i18n.js";

const W = 100;
const H = 140;

// The French suits and the four colours, each as a symbol in a 100 x 100 box.
const SPRITE = `
<svg xmlns="http://www.w3.org/2000/svg" aria-hidden="true" focusable="false" width="0" height="0" class="sprite">
  <defs>
    <symbol id="suit-H" viewBox="0 0 100 100"><path d="M50 92C22 69 4 52 4 31C4 15 16 5 30 5C40 5 46 11 50 20C54 11 60 5 70 5C84 5 96 15 96 31C96 52 78 69 50 92Z"/></symbol>
    <symbol id="suit-D" viewBox="0 0 100 100"><path d="M50 3L86 50L50 97L14 50Z"/></symbol>
    <symbol id="suit-S" viewBox="0 0 100 100"><path d="M50 3C60 22 96 37 96 60C96 75 85 84 72 84C63 84 57 80 54 74C55 84 59 91 67 97L33 97C41 91 45 84 46 74C43 80 37 84 28 84C15 84 4 75 4 60C4 37 40 22 50 3Z"/></symbol>
    <symbol id="suit-C" viewBox="0 0 100 100"><circle cx="50" cy="28" r="21"/><circle cx="26" cy="58" r="21"/><circle cx="74" cy="58" r="21"/><path d="M42 44L58 44L58 62C58 78 61 88 69 97L31 97C39 88 42 78 42 62Z"/></symbol>
    <symbol id="shape-R" viewBox="0 0 100 100"><path d="M50 6L95 90L5 90Z"/></symbol>
    <symbol id="shape-G" viewBox="0 0 100 100"><rect x="10" y="10" width="80" height="80" rx="6"/></symbol>
    <symbol id="shape-B" viewBox="0 0 100 100"><circle cx="50" cy="50" r="44"/></symbol>
    <symbol id="shape-Y" viewBox="0 0 100 100"><path d="M50 3L97 50L50 97L3 50Z"/></symbol>
    <symbol id="sym-skip" viewBox="0 0 100 100"><circle cx="50" cy="50" r="36" fill="none" stroke-width="13"/><path d="M24 76L76 24" stroke-width="13"/></symbol>
    <symbol id="sym-rev" viewBox="0 0 100 100"><path d="M20 44C20 26 34 16 50 16L64 16L64 4L86 24L64 44L64 32L50 32C42 32 36 37 36 44Z"/><path d="M80 56C80 74 66 84 50 84L36 84L36 96L14 76L36 56L36 68L50 68C58 68 64 63 64 56Z"/></symbol>
    <pattern id="back-lattice" width="12" height="12" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
      <rect width="12" height="12" fill="#8e2433"/><path d="M0 6H12M6 0V12" stroke="#b8485a" stroke-width="2"/>
    </pattern>
  </defs>
</svg>`;

export function installSprite() {
  if (document.getElementById("suit-H")) return;
  const holder = document.createElement("div");
  holder.innerHTML = SPRITE.trim();
  document.body.prepend(holder.firstChild);
}

// Ink on the white of a card: the French deck's two colours, the Skat deck's four.
const FRENCH_INK = { S: "#1b1b1b", C: "#1b1b1b", H: "#c62828", D: "#c62828" };
const SKAT_INK = { C: "#1b1b1b", S: "#1e7b34", H: "#c62828", D: "#b35c00" };
// The colour deck: Okabe and Ito's colour-blind-safe hues, each with the ink that reads on it
// (every pair at least 4.5:1) and a shape of its own.
export const COLOURS = {
  R: { fill: "#D55E00", ink: "#000000" },
  G: { fill: "#009E73", ink: "#000000" },
  B: { fill: "#0072B2", ink: "#ffffff" },
  Y: { fill: "#F0E442", ink: "#000000" },
};
export const SUIT_INK = { ...FRENCH_INK };

const FONT = `font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" font-weight="800"`;

// Where the pips of 2-10 sit, in the card's centre box (x 22-78, y 18-122).
const PIPS = {
  2: [[50, 28], [50, 112, 1]],
  3: [[50, 28], [50, 70], [50, 112, 1]],
  4: [[37, 28], [63, 28], [37, 112, 1], [63, 112, 1]],
  5: [[37, 28], [63, 28], [50, 70], [37, 112, 1], [63, 112, 1]],
  6: [[37, 28], [63, 28], [37, 70], [63, 70], [37, 112, 1], [63, 112, 1]],
  7: [[37, 28], [63, 28], [50, 49], [37, 70], [63, 70], [37, 112, 1], [63, 112, 1]],
  8: [[37, 28], [63, 28], [50, 49], [37, 70], [63, 70], [50, 91, 1], [37, 112, 1], [63, 112, 1]],
  9: [[37, 28], [63, 28], [37, 56], [63, 56], [50, 70], [37, 84, 1], [63, 84, 1], [37, 112, 1], [63, 112, 1]],
  10: [[37, 28], [63, 28], [50, 42], [37, 56], [63, 56], [37, 84, 1], [63, 84, 1], [50, 98, 1], [37, 112, 1], [63, 112, 1]],
};

const use = (id, x, y, size, fill, extra = "") =>
  `<use href="#${id}" x="${x}" y="${y}" width="${size}" height="${size}" fill="${fill}" ${extra}/>`;

function pip(suit, x, y, size, ink, flipped) {
  const half = size / 2;
  const turn = flipped ? ` transform="rotate(180 ${x} ${y})"` : "";
  return `<g${turn}>${use(`suit-${suit}`, x - half, y - half, size, ink)}</g>`;
}

// The rank letter a face shows: J Q K A, or the German Skat deck's B D K A.
function rankLetter(rank, skat) {
  if (skat && lang() === "de") return { J: "B", Q: "D", K: "K", A: "A" }[rank] || rank;
  return rank;
}

function corners(label, suit, ink) {
  const size = label.length > 1 ? 23 : 27;
  const spacing = label.length > 1 ? ` textLength="24" lengthAdjust="spacingAndGlyphs"` : "";
  const one = `<text x="14" y="29" font-size="${size}" text-anchor="middle" fill="${ink}" ${FONT}${spacing}>${label}</text>${use(`suit-${suit}`, 5, 34, 18, ink)}`;
  return `${one}<g transform="rotate(180 ${W / 2} ${H / 2})">${one}</g>`;
}

function frenchFace(parts, skat) {
  const { rank, suit } = parts;
  const ink = (skat ? SKAT_INK : FRENCH_INK)[suit];
  const label = rankLetter(rank, skat);
  let centre = "";
  if (PIPS[rank]) {
    const size = rank === "10" || rank === "9" ? 19 : 21;
    centre = PIPS[rank].map(([x, y, flipped]) => pip(suit, x, y, size, ink, flipped)).join("");
  } else if (rank === "A") {
    centre = pip(suit, 50, 70, 56, ink, false);
  } else {
    // A court card: a framed panel with the letter large and the suit above and below.
    const tint = { H: "#fde4e4", D: skat ? "#fdebd6" : "#fde4e4", S: skat ? "#e0f1e3" : "#e8e8ee", C: "#e8e8ee" }[suit];
    centre = `<rect x="24" y="20" width="52" height="100" rx="5" fill="${tint}" stroke="${ink}" stroke-width="2.5"/>`
      + `<rect x="28" y="24" width="44" height="92" rx="3" fill="none" stroke="${ink}" stroke-width="1"/>`
      + pip(suit, 50, 40, 20, ink, false)
      + `<text x="50" y="86" font-size="40" text-anchor="middle" fill="${ink}" ${FONT}>${label}</text>`
      + pip(suit, 50, 104, 16, ink, true);
  }
  const paper = `<rect x="1" y="1" width="${W - 2}" height="${H - 2}" rx="9" fill="#fffdf8" stroke="#00000040" stroke-width="1.5" class="face-bg"/>`;
  return paper + centre + corners(label, suit, ink);
}

// The big sign in the middle of a colour card, and the short one for its corners.
function colourSign(symbol, ink, x, y, size) {
  if (symbol === "skip") return use("sym-skip", x - size / 2, y - size / 2, size, "none", `stroke="${ink}"`);
  if (symbol === "rev") return use("sym-rev", x - size / 2, y - size / 2, size, ink);
  const fontSize = symbol.length > 1 ? size * 0.78 : size;
  return `<text x="${x}" y="${y + fontSize * 0.36}" font-size="${fontSize}" text-anchor="middle" fill="${ink}" class="ink" ${FONT}>${symbol}</text>`;
}

function colourFace(text, parts) {
  const wild = parts.colour === "W";
  const symbol = wild ? (text === "W+4" ? "+4" : "") : parts.symbol;
  const base = wild ? "#1b1b1b" : COLOURS[parts.colour].fill;
  const ink = wild ? "#ffffff" : COLOURS[parts.colour].ink;
  let out = `<rect x="1" y="1" width="${W - 2}" height="${H - 2}" rx="9" fill="${base}" class="face-bg"/>`
    + `<rect x="6" y="6" width="${W - 12}" height="${H - 12}" rx="6" fill="none" stroke="#ffffff" stroke-width="3"/>`;
  if (wild) {
    // Four quarters of an oval, each in its colour with its shape.
    out += `<g transform="rotate(-28 50 70)"><clipPath id="oval-${text}"><ellipse cx="50" cy="70" rx="34" ry="50"/></clipPath>`
      + `<g clip-path="url(#oval-${text})">`
      + `<rect x="0" y="0" width="50" height="70" fill="${COLOURS.R.fill}"/><rect x="50" y="0" width="50" height="70" fill="${COLOURS.B.fill}"/>`
      + `<rect x="0" y="70" width="50" height="70" fill="${COLOURS.Y.fill}"/><rect x="50" y="70" width="50" height="70" fill="${COLOURS.G.fill}"/></g>`
      + `<ellipse cx="50" cy="70" rx="34" ry="50" fill="none" stroke="#ffffff" stroke-width="3"/></g>`
      + use("shape-R", 30, 38, 14, COLOURS.R.ink) + use("shape-B", 56, 38, 14, COLOURS.B.ink)
      + use("shape-Y", 30, 88, 14, COLOURS.Y.ink) + use("shape-G", 56, 88, 14, COLOURS.G.ink);
    if (symbol) {
      out += `<rect x="27" y="56" width="46" height="28" rx="8" fill="#1b1b1b"/>`
        + `<text x="50" y="79" font-size="26" text-anchor="middle" fill="#ffffff" class="ink" ${FONT}>${symbol}</text>`;
    }
  } else {
    out += `<ellipse cx="50" cy="70" rx="30" ry="45" transform="rotate(-28 50 70)" fill="#ffffff"/>`
      + `<g class="face-sign">${colourSign(symbol, "#1b1b1b", 50, 70, symbol.length > 1 ? 44 : 54)}</g>`;
  }
  // Corners: the sign and, under it, the colour's shape (a W's corners show all four).
  const corner = wild
    ? (symbol
      ? `<text x="17" y="27" font-size="19" text-anchor="middle" fill="#ffffff" class="ink" ${FONT}>${symbol}</text>`
      : `${use("shape-R", 7, 9, 10, "#ffffff")}${use("shape-B", 18, 9, 10, "#ffffff")}${use("shape-Y", 7, 20, 10, "#ffffff")}${use("shape-G", 18, 20, 10, "#ffffff")}`)
    : `${colourSign(symbol, ink, 17, 21, symbol.length > 1 ? 20 : 24)}${use(`shape-${parts.colour}`, 10, 34, 14, ink)}`;
  out += `<g>${corner}</g><g transform="rotate(180 ${W / 2} ${H / 2})">${corner}</g>`;
  return out;
}

function backFace() {
  return `<rect x="1" y="1" width="${W - 2}" height="${H - 2}" rx="9" fill="#fffdf8" stroke="#00000040" stroke-width="1.5"/>`
    + `<rect x="7" y="7" width="${W - 14}" height="${H - 14}" rx="6" fill="url(#back-lattice)"/>`
    + `<rect x="7" y="7" width="${W - 14}" height="${H - 14}" rx="6" fill="none" stroke="#5e1320" stroke-width="2"/>`
    + `<ellipse cx="50" cy="70" rx="22" ry="30" fill="#fffdf8" stroke="#5e1320" stroke-width="3"/>`
    + `<text x="50" y="81" font-size="30" text-anchor="middle" fill="#8e2433" ${FONT}>M</text>`;
}

const faces = new Map();

// The SVG markup of one card: its text form ("10H", "Gskip", "W+4") or "back"; `deck` is
// "french52", "skat32" or "colour108" (the colour deck is known from the card itself).
export function faceSvg(text, deck = "french52") {
  const key = `${text}|${deck}|${lang()}`;
  let svg = faces.get(key);
  if (svg) return svg;
  let body;
  if (text === "back") body = backFace();
  else {
    const parts = cardParts(text);
    body = parts.deck === "french" ? frenchFace(parts, deck === "skat32") : colourFace(text, parts);
  }
  svg = `<svg viewBox="0 0 ${W} ${H}" xmlns="http://www.w3.org/2000/svg" aria-hidden="true" focusable="false">${body}</svg>`;
  faces.set(key, svg);
  return svg;
}

// A card as an element: an image with the card's name, or a back with no name.
export function cardElement(text, deck, attrs = {}) {
  const node = document.createElement("span");
  node.className = `card${text === "back" ? " back" : ""}${attrs.class ? ` ${attrs.class}` : ""}`;
  node.innerHTML = faceSvg(text, deck);
  if (text === "back") {
    node.setAttribute("aria-hidden", "true");
  } else {
    node.dataset.card = text;
    if (attrs.decorative) node.setAttribute("aria-hidden", "true");
    else {
      node.setAttribute("role", "img");
      node.setAttribute("aria-label", attrs.label || cardName(text));
    }
  }
  if (attrs.id) node.id = attrs.id;
  return node;
}

// The deck a ruleset's text form plays with: the colour game's, the Skat deck (online and
// East-Frisian by default, classic with deck=skat32) or the French 52.
export function deckOf(rulesetText) {
  const [preset, ...options] = (rulesetText || "").split(" ");
  const named = Object.fromEntries(options.map((o) => o.split("=")));
  if (preset === "colour") return "colour108";
  if (named.deck) return named.deck;
  return preset === "classic" ? "french52" : "skat32";
}

// A suit's or colour's sign as a small inline SVG (wish buttons, the pile's wish, chips).
export function suitSvg(code, deck = "french52") {
  if (COLOURS[code]) {
    return `<svg viewBox="0 0 100 100" aria-hidden="true" focusable="false" class="suit-sign"><use href="#shape-${code}" fill="${COLOURS[code].ink}"/></svg>`;
  }
  const ink = (deck === "skat32" ? SKAT_INK : FRENCH_INK)[code] || "#1b1b1b";
  return `<svg viewBox="0 0 100 100" aria-hidden="true" focusable="false" class="suit-sign"><use href="#suit-${code}" fill="${ink}"/></svg>`;
}

export function suitInk(code, deck = "french52") {
  if (COLOURS[code]) return COLOURS[code].fill;
  return (deck === "skat32" ? SKAT_INK : FRENCH_INK)[code] || "#1b1b1b";
}
