// `smslink completion bash|zsh|fish`: completion scripts generated from the
// command tree itself, so they cover every command, flag and flag value the
// catalog knows without a second list to keep in step.

import type { Command, Option } from 'commander';
import type { RunContext } from './context.js';
import { UsageError } from './exit.js';
import { COMPLETIONS, examples, type CliValues } from './operation.js';
import type { AddCommand, Runner } from './run.js';

interface Node {
  path: string;
  subcommands: string[];
  flags: string[];
}

interface Tree {
  nodes: Node[];
  /** "path|--flag" -> values; `__files__` for a file argument. */
  values: Map<string, readonly string[]>;
}

const FILE_FLAGS = new Set(['--ca-file', '--input', '--from-file', '--journal']);

function flagsOf(options: readonly Option[]): string[] {
  return options.flatMap((o) => [o.long, o.short].filter((f): f is string => Boolean(f)));
}

function valuesFor(option: Option): readonly string[] | undefined {
  if (option.long && FILE_FLAGS.has(option.long)) return ['__files__'];
  return COMPLETIONS.get(option) ?? option.argChoices;
}

export function commandTree(program: Command): Tree {
  const nodes: Node[] = [];
  const values = new Map<string, readonly string[]>();
  // --version belongs to the program only.
  const globals = program.options.filter((o) => o.long !== '--version');
  const walk = (cmd: Command, path: string) => {
    const visible = cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
    const own = path ? cmd.options : program.options;
    nodes.push({ path, subcommands: visible.map((c) => c.name()), flags: [...flagsOf(own), ...flagsOf(globals), '--help'].filter((f, i, a) => a.indexOf(f) === i) });
    for (const option of [...cmd.options, ...globals]) {
      const v = valuesFor(option);
      if (v?.length && option.long) values.set(`${path}|${option.long}`, v);
      if (v?.length && option.short) values.set(`${path}|${option.short}`, v);
    }
    for (const sub of visible) walk(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  walk(program, '');
  return { nodes, values };
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function bashScript(tree: Tree): string {
  const subs = tree.nodes.map((n) => `    ${q(n.path)}) echo ${q(n.subcommands.join(' '))} ;;`).join('\n');
  const flags = tree.nodes.map((n) => `    ${q(n.path)}) echo ${q(n.flags.join(' '))} ;;`).join('\n');
  const vals = [...tree.values.entries()].map(([k, v]) => `    ${q(k)}) echo ${q(v.join(' '))} ;;`).join('\n');
  return `# smslink completion for bash. Install: smslink completion bash > /etc/bash_completion.d/smslink
# (or: source <(smslink completion bash) in ~/.bashrc)
_smslink_subcommands() {
  case "$1" in
${subs}
  esac
}
_smslink_flags() {
  case "$1" in
${flags}
  esac
}
_smslink_values() {
  case "$1" in
${vals}
  esac
}
_smslink() {
  local cur prev path="" i w values
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case " $(_smslink_subcommands "$path") " in
      *" $w "*) path="\${path:+$path }$w" ;;
    esac
  done
  values="$(_smslink_values "$path|$prev")"
  if [[ "$values" == "__files__" ]]; then
    COMPREPLY=($(compgen -f -- "$cur"))
    return
  elif [[ -n "$values" ]]; then
    COMPREPLY=($(compgen -W "$values" -- "$cur"))
    return
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_smslink_flags "$path")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_smslink_subcommands "$path")" -- "$cur"))
  fi
}
complete -F _smslink smslink
`;
}

export function zshScript(tree: Tree): string {
  return `# smslink completion for zsh. Install: add this line to ~/.zshrc
#   source <(smslink completion zsh)
# It uses zsh's bash completion layer (bashcompinit).
(( $+functions[compdef] )) || { autoload -U +X compinit && compinit }
autoload -U +X bashcompinit && bashcompinit
${bashScript(tree)}`;
}

export function fishScript(tree: Tree): string {
  const lines = [
    '# smslink completion for fish. Install: smslink completion fish > ~/.config/fish/completions/smslink.fish',
    'function __smslink_path',
    '    set -l words (commandline -opc)',
    '    set -l path ""',
    '    for w in $words[2..-1]',
    '        if contains -- $w (__smslink_subcommands "$path")',
    '            set path (string trim -- "$path $w")',
    '        end',
    '    end',
    '    echo $path',
    'end',
    'function __smslink_subcommands',
    '    switch $argv[1]',
    ...tree.nodes.map((n) => `        case ${q(n.path)}\n            printf "%s\\n" ${n.subcommands.map(q).join(' ')}`),
    '    end',
    'end',
    'complete -c smslink -f',
  ];
  for (const node of tree.nodes) {
    const cond = `test (__smslink_path) = ${q(node.path)}`;
    if (node.subcommands.length) lines.push(`complete -c smslink -n ${q(cond)} -a ${q(node.subcommands.join(' '))}`);
    for (const flag of node.flags) {
      const v = tree.values.get(`${node.path}|${flag}`);
      const name = flag.startsWith('--') ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`;
      const arg = v ? (v[0] === '__files__' ? ' -rF' : ` -xa ${q(v.join(' '))}`) : '';
      lines.push(`complete -c smslink -n ${q(cond)} ${name}${arg}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export function registerCompletion(program: Command, command: AddCommand, runner: Runner): void {
  command('completion', 'Print a shell completion script (bash, zsh or fish)')
    ?.argument('<shell>', 'bash, zsh or fish')
    .addHelpText(
      'after',
      examples([
        'source <(smslink completion bash)          # in ~/.bashrc',
        'source <(smslink completion zsh)           # in ~/.zshrc',
        'smslink completion fish > ~/.config/fish/completions/smslink.fish',
      ]),
    )
    .action((shell: string, _o: CliValues, cmd: Command) =>
      runner(cmd, async (ctx: RunContext) => {
        const tree = commandTree(program);
        const scripts: Record<string, (t: Tree) => string> = { bash: bashScript, zsh: zshScript, fish: fishScript };
        const make = scripts[shell];
        if (!make) throw new UsageError(`<shell>: invalid value "${shell}": must be bash, zsh or fish`);
        ctx.stdout.write(make(tree));
      }),
    );
}
