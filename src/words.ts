/**
 * `a x` or `an x`, for the record types detection names in its reasons (`an agent_start frame`,
 * `a user/… record`). By the first letter, which is right for every record type of the formats
 * (`usage` and `user` take `a`).
 * @internal
 */
export function aOr(word: string): string {
  return `${/^[aeio]/i.test(word) ? 'an' : 'a'} ${word}`;
}
