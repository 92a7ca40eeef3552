#!/usr/bin/env node
// The platformfake command (npx platformfake -addr 127.0.0.1:4010): runs the binary of this
// platform's package with the same arguments, passing signals on and exiting as it exits.
'use strict';
const { spawn } = require('node:child_process');
const { binaryPath } = require('..');

let bin;
try {
  bin = binaryPath();
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
// Its stdin is a pipe this process holds: however this process ends (kill -9 included), the pipe
// closes and the binary stops (-exit-on-stdin-eof), so it never outlives the command.
const child = spawn(bin, ['-exit-on-stdin-eof', ...process.argv.slice(2)], { stdio: ['pipe', 'inherit', 'inherit'] });
child.stdin.on('error', () => {});
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => child.kill(sig));
}
child.on('error', (err) => {
  console.error(`platformfake: ${bin}: ${err.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal === 'SIGINT' ? 130 : 1);
});
