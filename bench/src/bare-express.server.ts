// The floor for `bench http`: express with nothing of ours, answering a small JSON body.
import express from 'express';

const app = express();
app.get('/hello', (_request, response) => {
  response.json({ hello: 'world' });
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ msg: 'quarry started', port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
