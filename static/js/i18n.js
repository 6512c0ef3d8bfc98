// i18n.js: the page's words in its reader's language (docs/translating.md): its own
// messages, by their English (t, nt), and the engine's phrases (say: engine/words.py has
// the forms), from the catalogue <html data-catalogue> names: fetched once, cached, and
// here before anything is drawn (the modules that draw wait for this one).
const html = document.documentElement;
const C = await fetch(html.dataset.catalogue).then((r) => r.json()).catch(() => ({}));
const M = C.messages || {};
const K = C.codes || {};
const rules = new Intl.PluralRules(html.lang);
const GLYPH = { S: "♠", H: "♥", C: "♣", D: "♦" };
const FIELD = /\{(\w+)(?::([^}]+))?\}/g;
export const lang = html.lang;

/** A message's words for the count n: its catalogue's form (by plural category), else
 * the English it was given. */
const form = (f, n, one, many) => (typeof f == "string" ? f : f ? f[rules.select(n)] ?? f.other : n == 1 ? one : many);

/** `s` with its {placeholders} filled from `a`. */
export const fill = (s, a) => s.replace(FIELD, (_, k, f) => value(a[k], f));
/** A message by its English: filled from `a`, or without `a` its words to fill later. */
export const t = (id, a) => (a ? fill(form(M[id], a.n, id, id), a) : form(M[id], 1, id, id));
/** A counted message: its form for `n`, {n} and `a` filled. */
export const nt = (one, many, n, a) => fill(form(M[one], n, one, many), { n, ...a });

/** A phrase (engine/words.py) in words; on its own, with a capital. */
export function say(p, top = true) {
  if (!p) return "";
  const s = form(K[p.code], p.n ?? 1, p.code, p.code);
  const out = fill(s, p);
  const m = /^\{(\w+)(:[^}]+)?\}/.exec(s);
  return top && (!m || m[2] || typeof p[m[1]] == "object") ? out.charAt(0).toUpperCase() + out.slice(1) : out;
}

/** A card's name by code ("Queen of Hearts"); `the`: with its article. */
export const cardName = (c, the) => fill(K.card || "{rank} {suit}", { rank: K[`${the ? "the_rank" : "rank"}.${c.slice(0, -1)}`], suit: K[`suit.${c.slice(-1)}`] });

function value(v, f) {
  if (v == null) return "";
  if (Array.isArray(v)) {
    if (f != "and" && f != "semi") return v.map((x) => value(x, f)).join(f == "short" ? " " : ", ");
    const items = v.map((x) => value(x));
    return f == "semi" || items.length < 2 ? items.join("; ") : say({ code: "and", first: items.slice(0, -1).join(", "), last: items.at(-1) }, false);
  }
  if (typeof v == "object") return say(v, f == "cap");
  const n = /^(\+?)\.(\d)f$/.exec(f || "");
  if (n) return ((n[1] && v >= 0 ? "+" : "") + even(v, +n[2])).replace(".", C.decimal || ".");
  if (f == "g") return String(v).replace(".", C.decimal || ".");
  if (f == "name" || f == "the") return cardName(v, f == "the");
  if (f == "short") return v.slice(0, -1) + GLYPH[v.slice(-1)];
  return f ? K[`${f}.${v}`] ?? String(v) : String(v);
}

/** As Python writes it: an exact half to the even digit. */
function even(v, d) {
  const s = v.toFixed(d);
  if (!new RegExp(`\\.\\d{${d}}50*$`).test(v.toFixed(99))) return s;
  const k = 10 ** d;
  const r = Math.round(v * k);
  return ((r % 2 ? r - 1 : r) / k).toFixed(d);
}
