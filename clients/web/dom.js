// Small helpers for building the page, and the motion setting every module asks.

// An element with attributes ("class", "text", "on<event>", anything else as an attribute) and
// children; null, false and undefined children are left out (never written as text).
export const $ = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== false && value !== undefined && value !== null) node.setAttribute(key, value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false || child === "") continue;
    node.append(child);
  }
  return node;
};

// Replace a node's children, leaving out the empty ones (replaceChildren writes null as "null").
export function fill(node, ...children) {
  node.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false && c !== ""));
  return node;
}

const MOTION_KEY = "maumau.motion";
const reduced = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;

// Animations run unless the system asks for reduced motion or the page's setting is off.
export function motionSetting() {
  return localStorage.getItem(MOTION_KEY) !== "off";
}

export function setMotion(on) {
  localStorage.setItem(MOTION_KEY, on ? "on" : "off");
  applyMotion();
}

export function motionOn() {
  return motionSetting() && !(reduced && reduced.matches);
}

export function applyMotion() {
  document.documentElement.classList.toggle("still", !motionOn());
}

if (reduced && reduced.addEventListener) reduced.addEventListener("change", applyMotion);
