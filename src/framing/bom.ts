// The one BOM rule of every reader: a UTF-8 byte order mark at byte 0 of a stream is not content
// (it is skipped, and byte offsets still count it); a BOM anywhere else is content.

/** The UTF-8 encoding of U+FEFF. */
export const BOM_BYTES: readonly number[] = [0xef, 0xbb, 0xbf];

/** True when `byte`, at stream byte `position`, is the part of a leading BOM that belongs there. */
export function isBomByte(byte: number, position: number): boolean {
  return position < 3 && byte === BOM_BYTES[position];
}

/** True when UTF-16 code unit `code`, at stream character `position`, is a leading BOM. */
export function isBomChar(code: number, position: number): boolean {
  return position === 0 && code === 0xfeff;
}

/** `text` without its leading BOM, if it has one. */
export function stripBom(text: string): string {
  return isBomChar(text.charCodeAt(0), 0) ? text.slice(1) : text;
}
