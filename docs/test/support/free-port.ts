export { freePort } from '../../../reference-service/test/support/free-port.js';
