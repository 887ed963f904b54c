import type { Command } from 'commander';
import { usageError } from './exit-error.ts';

// Shell completion of nouns, verbs and options, generated from the command tree itself, so it
// never lags behind the commands. Spaces and paths are not completed (that needs the server).

type Tree = Map<string, { subs: string[]; options: string[] }>;

function treeOf(root: Command): Tree {
  const tree: Tree = new Map();
  const optionsOf = (c: Command) => c.options.map((o) => o.long).filter((x): x is string => Boolean(x));
  tree.set('', { subs: root.commands.map((c) => c.name()), options: optionsOf(root) });
  for (const c of root.commands) {
    tree.set(c.name(), { subs: c.commands.map((s) => s.name()), options: optionsOf(c) });
    for (const s of c.commands) tree.set(`${c.name()} ${s.name()}`, { subs: [], options: optionsOf(s) });
  }
  return tree;
}

function bash(tree: Tree): string {
  const cases = [...tree].map(([k, v]) => `    "${k}") words="${[...v.subs, ...v.options].join(' ')}" ;;`).join('\n');
  return `# kspace completion for bash: eval "$(kspace completion bash)"
_kspace() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" key="" words=""
  local w1="\${COMP_WORDS[1]}" w2="\${COMP_WORDS[2]}"
  if [ "$COMP_CWORD" -eq 1 ]; then key=""; elif [ "$COMP_CWORD" -eq 2 ]; then key="$w1"; else key="$w1 $w2"; fi
  case "$key" in
${cases}
    *) words="" ;;
  esac
  if [ -z "$words" ] && [ "$COMP_CWORD" -gt 2 ]; then
    case "$w1" in
${[...tree]
  .filter(([k]) => k !== '' && !k.includes(' '))
  .map(([k, v]) => `      "${k}") words="${v.options.join(' ')}" ;;`)
  .join('\n')}
    esac
  fi
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
complete -F _kspace kspace
`;
}

function zsh(tree: Tree): string {
  return `#compdef kspace
# kspace completion for zsh: eval "$(kspace completion zsh)"
${bash(tree).split('\n').slice(1).join('\n').replace('complete -F _kspace kspace', 'autoload -U +X bashcompinit && bashcompinit\ncomplete -F _kspace kspace')}`;
}

function fish(tree: Tree): string {
  const lines = ['# kspace completion for fish: kspace completion fish | source', 'complete -c kspace -f'];
  const top = tree.get('')!;
  for (const s of top.subs) lines.push(`complete -c kspace -n '__fish_use_subcommand' -a '${s}'`);
  for (const [k, v] of tree) {
    if (k === '' || k.includes(' ')) continue;
    for (const s of v.subs) lines.push(`complete -c kspace -n '__fish_seen_subcommand_from ${k}' -a '${s}'`);
    const opts = new Set([...v.options, ...v.subs.flatMap((s) => tree.get(`${k} ${s}`)?.options ?? [])]);
    for (const o of opts) lines.push(`complete -c kspace -n '__fish_seen_subcommand_from ${k}' -l '${o.slice(2)}'`);
  }
  return lines.join('\n') + '\n';
}

/** `kspace completion bash|zsh|fish`. */
export function registerCompletionCommand(program: Command): void {
  program
    .command('completion')
    .argument('<shell>', 'bash, zsh or fish')
    .description('print a shell completion script')
    .helpGroup('People and keys:')
    .addHelpText(
      'after',
      '\nExamples:\n  eval "$(kspace completion bash)"      # in ~/.bashrc\n  eval "$(kspace completion zsh)"       # in ~/.zshrc\n  kspace completion fish > ~/.config/fish/completions/kspace.fish\n',
    )
    .action((shell: string) => {
      const tree = treeOf(program);
      const make = { bash, zsh, fish }[shell as 'bash' | 'zsh' | 'fish'];
      if (!make) throw usageError('the shell is bash, zsh or fish');
      process.stdout.write(make(tree));
    });
}
