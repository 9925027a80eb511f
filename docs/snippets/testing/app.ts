// Your receiver's app module; here, the Express app of the quickstart.
export { createApp } from '../quickstart/express';
