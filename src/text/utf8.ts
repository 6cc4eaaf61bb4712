/**
 * UTF-8 well-formedness, checked by hand: node's decoder replaces malformed bytes with U+FFFD,
 * which would let a document or manifest say something its bytes do not. Shared by the TOML
 * reader (acceptance documents) and the manifest loader, so it sits in the core layer.
 */
/**
 * The offset of the first byte that does not begin a well-formed UTF-8 sequence (Unicode table
 * 3-7: no overlong forms, no encoded surrogates, nothing past U+10FFFF, no cut sequence), or
 * undefined when every byte does. Node's decoder would replace such bytes with U+FFFD instead.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number | undefined {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    const form = sequenceForm(lead);
    if (!form || i + form.length > bytes.length) return i;
    const second = bytes[i + 1]!;
    if (second < form.secondMin || second > form.secondMax) return i;
    for (let k = 2; k < form.length; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return i;
    i += form.length;
  }
  return undefined;
}

/** How long a sequence starting with `lead` is, and the range its second byte must fall in. */
function sequenceForm(lead: number): { length: number; secondMin: number; secondMax: number } | undefined {
  if (lead >= 0xc2 && lead <= 0xdf) return { length: 2, secondMin: 0x80, secondMax: 0xbf };
  if (lead === 0xe0) return { length: 3, secondMin: 0xa0, secondMax: 0xbf }; // no overlong forms
  if (lead === 0xed) return { length: 3, secondMin: 0x80, secondMax: 0x9f }; // no surrogates
  if (lead >= 0xe1 && lead <= 0xef) return { length: 3, secondMin: 0x80, secondMax: 0xbf };
  if (lead === 0xf0) return { length: 4, secondMin: 0x90, secondMax: 0xbf }; // no overlong forms
  if (lead >= 0xf1 && lead <= 0xf3) return { length: 4, secondMin: 0x80, secondMax: 0xbf };
  if (lead === 0xf4) return { length: 4, secondMin: 0x80, secondMax: 0x8f }; // up to U+10FFFF
  return undefined; // a continuation byte, an overlong lead (C0, C1) or past U+10FFFF (F5..FF)
}
