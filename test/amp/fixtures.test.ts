import { amp } from '../../src/index';
import { fixtureSuite } from '../fixture-suite';

fixtureSuite(amp, 'fixtures/amp');
