// Amounts as typed — `2 l milk`, `bread x2`, `eggs (12)` — read as listd reads them, and an item's
// identity (`itemKey`) as listd keys it, so that an add waiting on the phone is shown as the item
// it will be (eggs, 6), not as a second item "6 eggs". The rules are ItemAmount and Measure in ListModel, step for step; listd-web writes
// the units and fraction characters in below from Measure, and a browser test reads thousands
// of generated texts here and in Swift and compares. What is sent is the text as typed: listd-web
// reads it with the Swift reader, so this one only decides what the page shows meanwhile.
'use strict';

const MEASURE = /*MEASURE*/{ units: [], fractions: '' };
const measureUnits = new Set(MEASURE.units);
const measureFractions = new Set(Array.from(MEASURE.fractions));
const maximumQuantityLength = 100;

const isDigit = (c) => c >= '0' && c <= '9';
const isLetter = (c) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
const isTimes = (c) => c === 'x' || c === 'X' || c === '×';
const isWhite = (c) => /^\p{White_Space}/u.test(c);
// One segmenter for every text: made anew per text, it was most of the cost of keying a long list.
const graphemeSegmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const graphemes = (text) => Array.from(graphemeSegmenter.segment(text), (s) => s.segment);

/// Surrounding white space taken off by character, as listd trims (ListText.trimmed).
function trimmedText(text) {
  const g = graphemes(text);
  let start = 0;
  let end = g.length;
  while (start < end && isWhite(g[start])) start++;
  while (end > start && isWhite(g[end - 1])) end--;
  return g.slice(start, end).join('');
}

/// An item's identity, as listd's (ListText.key): trimmed as listd trims, then folded by case
/// without the phone's locale (`toLocaleLowerCase` differs in Turkish, and listd's does not). Two
/// texts with one key are one item everywhere: on the list, in the queue, in ticks and marks.
/// WebAmountTests compares it with ListText.key on thousands of generated texts.
function itemKey(text) {
  // ASCII trims and folds by itself (keys are taken for every row of a list of thousands).
  if (/^[\x00-\x7f]*$/.test(text)) return text.replace(/^[\t\n\v\f\r ]+|[\t\n\v\f\r ]+$/g, '').toLowerCase();
  // Lowered letter by letter, as Swift's `lowercased()`: a whole string's would make a final Σ ς.
  return Array.from(trimmedText(text).toUpperCase(), (c) => c.toLowerCase()).join('');
}

/// The amount trimmed, or null when listd would refuse it (ListText.validatedQuantity).
function validQuantity(text) {
  const trimmed = trimmedText(text);
  if (!trimmed || /[\p{Cc}\p{Zl}\p{Zp}]/u.test(trimmed)) return null;
  // A first mark that joins the character before it (ListText: joinsTheSpaceBefore).
  if (graphemes(' ' + trimmed)[0] !== ' ') return null;
  let depth = 0;
  for (const c of trimmed) {
    if (c === '(') depth++;
    if (c === ')' && --depth < 0) return null;
  }
  if (depth !== 0 || graphemes(trimmed).length > maximumQuantityLength) return null;
  return trimmed;
}

function numberEnd(t, start) {
  let i = start;
  while (i < t.length && isDigit(t[i])) i++;
  if (i < t.length && measureFractions.has(t[i])) return i + 1;
  if (i === start) return null;
  if (i + 1 < t.length && (t[i] === '.' || t[i] === ',' || t[i] === '/') && isDigit(t[i + 1])) {
    i++;
    while (i < t.length && isDigit(t[i])) i++;
  }
  return i;
}

function unitEnd(t, start) {
  let i = start;
  if (i < t.length && t[i] === '×') i++;
  else while (i < t.length && isLetter(t[i])) i++;
  if (i === start || !(i === t.length || t[i] === ' ')) return null;
  return measureUnits.has(t.slice(start, i).join('').toLowerCase()) ? i : null;
}

function measureEnds(t, start, bare) {
  if (start >= t.length) return [];
  if (isTimes(t[start])) {
    let i = start + 1;
    while (i < t.length && isDigit(t[i])) i++;
    return i > start + 1 && (i === t.length || t[i] === ' ') ? [i] : [];
  }
  const number = numberEnd(t, start);
  if (number === null) return [];
  const ends = [];
  if (number < t.length && t[number] === ' ') {
    const unit = unitEnd(t, number + 1);
    if (unit !== null) ends.push(unit);
  }
  const attached = unitEnd(t, number);
  if (attached !== null) ends.push(attached);
  if (bare && (number === t.length || t[number] === ' ')) ends.push(number);
  return ends;
}

function trailingGroup(t) {
  if (t[t.length - 1] !== ')') return null;
  let depth = 0;
  let i = t.length;
  while (i > 0) {
    i--;
    if (t[i] === ')') depth++;
    if (t[i] === '(') {
      depth--;
      if (depth === 0) break;
    }
  }
  if (depth !== 0 || t[i] !== '(') return null;
  const content = t.slice(i + 1, t.length - 1).join('');
  if (validQuantity(content) !== content) return null;
  return { open: i, quantity: content, escaped: i > 1 && t[i - 1] === '\\' };
}

function leadingParts(t, start) {
  for (const end of measureEnds(t, start, true)) {
    if (end - start > maximumQuantityLength) continue;
    let textStart = end;
    while (textStart < t.length && t[textStart] === ' ') textStart++;
    if (textStart === end || textStart >= t.length) continue;
    const unit = end > start && isLetter(t[end - 1]) && !isTimes(t[start]);
    const of = textStart + 2 < t.length && t[textStart + 2] === ' ' && t.slice(textStart, textStart + 2).join('').toLowerCase() === 'of';
    if (unit && of) continue;
    return { end, textStart };
  }
  return null;
}

function trailingAmount(t) {
  const lastSpace = t.lastIndexOf(' ');
  if (lastSpace < 0) return null;
  const candidates = [];
  if (lastSpace > 0 && t[lastSpace - 1] !== ' ') {
    const previousSpace = t.slice(0, lastSpace).lastIndexOf(' ');
    if (previousSpace >= 0) candidates.push(previousSpace + 1);
  }
  candidates.push(lastSpace + 1);
  for (const start of candidates) {
    let measure = start;
    while (measure < t.length && t[measure] === '\\') measure++;
    if (t.length - measure > maximumQuantityLength || !measureEnds(t, measure, false).includes(t.length)) continue;
    let gapStart = start;
    while (gapStart > 0 && t[gapStart - 1] === ' ') gapStart--;
    if (gapStart === 0) continue;
    return { start, backslashes: measure - start, gapStart };
  }
  return null;
}

const removing = (t, index) => t.slice(0, index).concat(t.slice(index + 1)).join('');

/// The item and its amount (null: none) in what was typed, as listd reads it (ItemAmount.read).
function readItem(written) {
  const trimmed = trimmedText(written);
  const t = Array.from(trimmed);
  const alone = (text) => ({ text, quantity: null });
  const group = trailingGroup(t);
  if (group) {
    if (group.escaped) return alone(removing(t, group.open - 1));
    let end = group.open;
    while (end > 0 && isWhite(t[end - 1])) end--;
    if (end === 0) return alone(trimmed);
    const before = t.slice(0, end);
    const own = trailingGroup(before);
    return { text: own && own.escaped ? removing(before, own.open - 1) : before.join(''), quantity: group.quantity };
  }
  let backslashes = 0;
  while (backslashes < t.length && t[backslashes] === '\\') backslashes++;
  const leading = leadingParts(t, backslashes);
  if (leading) {
    if (backslashes > 0) return alone(removing(t, 0));
    return { text: t.slice(leading.textStart).join(''), quantity: t.slice(0, leading.end).join('') };
  }
  const trailing = trailingAmount(t);
  if (trailing) {
    if (trailing.backslashes > 0) return alone(removing(t, trailing.start));
    return { text: t.slice(0, trailing.gapStart).join(''), quantity: t.slice(trailing.start).join('') };
  }
  return alone(trimmed);
}
