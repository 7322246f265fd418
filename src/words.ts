/**
 * `a x` or `an x`, for the record types, event types and format ids messages name (`an
 * agent_start frame`, `an opencode record`, `a user/… record`). By the spelling, which is right for
 * every such word of the formats: a vowel but `u` takes `an`, and so does `un…` (`an unknown
 * event`); `usage`, `user` and `unicode` take `a`.
 * @internal
 */
export function aOr(word: string): string {
  return `${/^(?:[aeio]|un(?!i))/i.test(word) ? 'an' : 'a'} ${word}`;
}
