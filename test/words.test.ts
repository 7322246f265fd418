import { expect, test } from 'vitest';
import { convert } from '../src/all';
import { aOr } from '../src/words';

test.each([
  ['agent_start', 'an agent_start'],
  ['error', 'an error'],
  ['init', 'an init'],
  ['opencode', 'an opencode'],
  ['amp', 'an amp'],
  ['ag-ui', 'an ag-ui'],
  ['ai-sdk', 'an ai-sdk'],
  ['unknown', 'an unknown'],
  ['user', 'a user'],
  ['usage', 'a usage'],
  ['unicode', 'a unicode'],
  ['hep', 'a hep'],
  ['message_delta', 'a message_delta'],
  ['codex', 'a codex'],
])('aOr(%j) is %j', (word, said) => {
  expect(aOr(word)).toBe(said);
});

test('a loss names the source format with its article: "an opencode record has no HEP frame"', () => {
  const line =
    '{"type":"step_start","timestamp":1,"sessionID":"ses_1","part":{"id":"p","sessionID":"ses_1","messageID":"m","type":"step-start"}}\n' +
    '{"type":"mystery","timestamp":2,"sessionID":"ses_1"}\n';
  const { diagnostics } = convert(line, { from: 'opencode', to: 'hep' });
  expect(diagnostics.map((d) => d.message)).toContainEqual(
    expect.stringContaining('an opencode record has no HEP frame'),
  );
});
