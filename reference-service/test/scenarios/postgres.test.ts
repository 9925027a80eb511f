import { describe } from 'vitest';
import { BACKENDS } from '../support/backends.js';
import { runScenarios } from './suite.js';
import { startServiceTarget } from './targets/service.js';

const backend = BACKENDS.find((candidate) => candidate.name === 'postgres')!;

describe('scenarios on the service (PostgreSQL)', () => runScenarios(() => startServiceTarget(backend)));
