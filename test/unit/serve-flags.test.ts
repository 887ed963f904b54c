import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.ts';
import { plainServeFlags, type ServeFlags } from '../../src/cli/serve-run.ts';

/** What commander's `serve` command gives its action for `argv` (the action is replaced, nothing runs). */
async function commanderFlags(argv: string[]): Promise<ServeFlags> {
  const program = buildProgram();
  const serve = program.commands.find((c) => c.name() === 'serve') as Command;
  let got: ServeFlags = {};
  serve.action((opts: ServeFlags) => {
    got = { ...opts };
  });
  await program.parseAsync(argv, { from: 'user' });
  return got;
}

describe('plainServeFlags: serve without commander', () => {
  it.each<[string[], ServeFlags]>([
    [['serve'], {}],
    [['serve', '--data', 'd'], { data: 'd' }],
    [['serve', '--data', 'd', '--host', '0.0.0.0', '--port', '8080'], { data: 'd', host: '0.0.0.0', port: '8080' }],
    [['serve', '--port=9000', '--data=/a=b'], { port: '9000', data: '/a=b' }],
    [['serve', '--port', '1', '--port', '2'], { port: '2' }],
    [['serve', '--data', 'with space'], { data: 'with space' }],
  ])('%j → %j, as commander parses it', async (argv, flags) => {
    expect(plainServeFlags(argv)).toEqual(flags);
    expect(await commanderFlags(argv)).toEqual(flags);
  });

  it.each([
    [[]],
    [['serve', '--help']],
    [['serve', '-h']],
    [['serve', '--data']],
    [['serve', '--data=']],
    [['serve', '--data', '--port', '1']],
    [['serve', '--port', '-1']],
    [['serve', 'extra']],
    [['serve', '--json']],
    [['serve', '--toString', 'x']],
    [['serve', '--constructor=x']],
    [['--json', 'serve']],
    [['serves']],
    [['admin', 'serve']],
  ])('%j goes to commander', (argv) => {
    expect(plainServeFlags(argv)).toBeNull();
  });
});
