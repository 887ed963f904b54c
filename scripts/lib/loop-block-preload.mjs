// Loaded into a benchmark's child server (NODE_OPTIONS=--import, loop-block.ts): the main
// thread's CPU time between two ticks of a 1 ms timer, the largest since the last SIGUSR2, which
// writes it to standard error and starts again. That is the longest stretch of work the event
// loop did without turning (what a /healthz beside it waits at least), measured in CPU time, which
// other processes on a loaded machine inflate far less than wall time.
let last = process.threadCpuUsage();
let longest = 0;
setInterval(() => {
  const now = process.threadCpuUsage();
  const ms = (now.user + now.system - last.user - last.system) / 1000;
  if (ms > longest) longest = ms;
  last = now;
}, 1).unref();
process.on('SIGUSR2', () => {
  process.stderr.write(`loop-block ${longest.toFixed(2)}\n`);
  longest = 0;
});
