/**
 * The number of cases a property runs by default (`FUZZ_RUNS`, 200 unless set): `npm run fuzz`
 * and a developer hunting a failure raise it for every property suite at once. Suites scale it
 * where their cases are cheap.
 */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 200);
