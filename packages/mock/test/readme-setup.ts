import { createSandbox } from '@svc-kit/mock';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';

const sandbox = createSandbox({ baseUrl: 'https://api.example.test' });
const server = setupServer(...sandbox.handlers);
beforeAll(() => server.listen());
afterEach(() => sandbox.reset());
afterAll(() => server.close());
