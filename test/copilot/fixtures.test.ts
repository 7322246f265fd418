import { copilot } from '../../src/index';
import { fixtureSuite } from '../fixture-suite';

fixtureSuite(copilot, 'fixtures/copilot');
