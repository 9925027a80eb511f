import { describe } from 'vitest';
import { runScenarios } from './suite.js';
import { startMockTarget } from './targets/mock.js';

describe('scenarios on the mock', () => runScenarios(startMockTarget));
