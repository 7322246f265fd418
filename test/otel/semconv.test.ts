import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import { expect, test } from 'vitest';
import * as ours from '../../src/otel/semconv';

// The names are copied (OpenTelemetry's advice for incubating conventions): each must equal the
// constant of the same name in @opentelemetry/semantic-conventions, the version docs/otel.md names.
test.each(Object.entries(ours))('%s is the package constant of that name', (name, value) => {
  expect((incubating as Record<string, unknown>)[name]).toBe(value);
});
