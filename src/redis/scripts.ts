import { createHash } from 'node:crypto';

// The stream layout (docs/scaling.md): one stream per session; an event is the entry `<seq>-0`
// with the fields `t` (its type) and `j` (the envelope's compact JSON), and `p` (the seq its
// writer wrote before it) when that is not `seq - 1`: a source's own seqs may have holes (a
// replayed log without its transient events), which readers must not take for trimmed entries.
// It is the writer's word, not the stream's last entry, so a stream deleted under a live writer
// still shows readers what it lost. Closing the session adds the marker entry `<last seq>-1`
// with the field `end`. Every script touches only its one key, so they run unchanged on Redis
// Cluster.

/** A Lua script and its SHA-1, for `EVALSHA` with an `EVAL` fallback after a server restart. */
export interface Script {
  source: string;
  sha: string;
}

const script = (source: string): Script => ({ source, sha: createHash('sha1').update(source).digest('hex') });

// Reads the stream's last generated id (it survives trimming): the last seq and whether the
// close marker was written.
const LAST = `
local function last(key)
  if redis.call('EXISTS', key) == 0 then return 0, 0, false end
  local info = redis.call('XINFO', 'STREAM', key)
  local lastId, first = '0-0', false
  for i = 1, #info, 2 do
    if info[i] == 'last-generated-id' then lastId = info[i + 1] end
    if info[i] == 'first-entry' then first = info[i + 1] end
  end
  local ms, sub = string.match(lastId, '^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(sub), first
end
`;

/**
 * Appends envelopes idempotently. KEYS[1] the stream; ARGV[1] `MAXLEN` bound (`0`: none),
 * ARGV[2] `=` or `~`, ARGV[3] `1` to close after the events, then one (seq, type, json, seq
 * written before it) quadruple per event. A seq at or below the stream's last one is a retried append: skipped when the
 * stored entry holds the same JSON (or was trimmed away), an `AGENTWIRE_CONFLICT` error when it
 * holds another event (a second writer). Any append to a closed session (the close marker
 * written) is an `AGENTWIRE_CLOSED` error; closing again is not. Replies `{stored, duplicates, last seq}`.
 */
export const APPEND = script(`${LAST}
local key = KEYS[1]
local lastSeq, closed = last(key)
if ARGV[3] ~= '1' and closed ~= 0 then return redis.error_reply('AGENTWIRE_CLOSED the session is closed') end
local stored, duplicates = 0, 0
for i = 4, #ARGV, 4 do
  local seq = tonumber(ARGV[i])
  local id = ARGV[i] .. '-0'
  if seq > lastSeq then
    if closed ~= 0 then return redis.error_reply('AGENTWIRE_CLOSED the session is closed') end
    if tonumber(ARGV[i + 3]) == seq - 1 then
      redis.call('XADD', key, id, 't', ARGV[i + 1], 'j', ARGV[i + 2])
    else
      redis.call('XADD', key, id, 't', ARGV[i + 1], 'j', ARGV[i + 2], 'p', ARGV[i + 3])
    end
    lastSeq = seq
    stored = stored + 1
  else
    local found = redis.call('XRANGE', key, id, id)
    if #found == 1 and found[1][2][4] ~= ARGV[i + 2] then
      return redis.error_reply('AGENTWIRE_CONFLICT seq ' .. ARGV[i] .. ' holds another event')
    end
    duplicates = duplicates + 1
  end
end
if ARGV[3] == '1' and closed == 0 then
  redis.call('XADD', key, string.format('%d-1', lastSeq), 'end', '1')
end
local maxLen = tonumber(ARGV[1])
if maxLen > 0 and stored > 0 then redis.call('XTRIM', key, 'MAXLEN', ARGV[2], maxLen) end
return {stored, duplicates, string.format('%d', lastSeq)}
`);

/**
 * Reads at one instant what a reader needs. KEYS[1] the stream; ARGV[1] the cursor seq, ARGV[2]
 * most entries. Replies nil for a stream that does not exist, else `{last generated id, first
 * entry id or '', entries after the cursor, the first entry's \`p\` or ''}`.
 */
export const READ = script(`${LAST}
local key = KEYS[1]
if redis.call('EXISTS', key) == 0 then return false end
local lastSeq, sub, first = last(key)
local firstId, firstPrev = '', ''
if first then
  firstId = first[1]
  for i = 1, #first[2], 2 do
    if first[2][i] == 'p' then firstPrev = first[2][i + 1] end
  end
end
local entries = redis.call('XRANGE', key, '(' .. ARGV[1] .. '-0', '+', 'COUNT', ARGV[2])
return {string.format('%d-%d', lastSeq, sub), firstId, entries, firstPrev}
`);

/**
 * The session's last seq (of the stream's last generated id, which survives trimming), as a
 * string, or nil for a stream that does not exist. KEYS[1] the stream. What a follower checks
 * its cursor against, and how a blocked follower notices a deleted stream.
 */
export const HEAD = script(`${LAST}
local key = KEYS[1]
if redis.call('EXISTS', key) == 0 then return false end
local lastSeq = last(key)
return string.format('%d', lastSeq)
`);
