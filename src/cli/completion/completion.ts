// `smslink completion bash|zsh|fish`: completion scripts generated from the
// command tree itself, so they cover every command, flag and flag value the
// catalog knows without a second list to keep in step. What they offer is
// quoted for the shell: a profile or file name is inserted as text, never run.

import type { Command, Option } from 'commander';
import type { CommandDef } from '../core/command.js';
import { ARG_COMPLETIONS, COMPLETIONS, PROFILES } from '../core/flags.js';
import { UsageError } from '../../exit-codes.js';
import { invalidValue, oneOf } from '../../output/words.js';

/** Candidates read at completion time rather than written into the script: files. */
const FILES = '__files__';

interface Node {
  path: string;
  subcommands: string[];
  flags: string[];
  /** Flags that take a value: the next word is theirs, never a subcommand. */
  valued: string[];
}

interface Tree {
  nodes: Node[];
  /** "path|--flag" -> values; FILES for a file argument, PROFILES for a profile. */
  values: Map<string, readonly string[]>;
  /** "path|N" -> values of the Nth positional argument (from 1). */
  args: Map<string, readonly string[]>;
}

const FILE_FLAGS = new Set(['--ca-file', '--input', '--from-file', '--journal']);

function flagsOf(options: readonly Option[]): string[] {
  return options.flatMap((o) => [o.long, o.short].filter((f): f is string => Boolean(f)));
}

function valuesFor(option: Option): readonly string[] | undefined {
  if (option.long && FILE_FLAGS.has(option.long)) return [FILES];
  if (option.long === '--profile') return [PROFILES];
  return COMPLETIONS.get(option) ?? option.argChoices;
}

const unique = (list: string[]) => list.filter((f, i, a) => a.indexOf(f) === i);

export function commandTree(program: Command): Tree {
  const nodes: Node[] = [];
  const values = new Map<string, readonly string[]>();
  const args = new Map<string, readonly string[]>();
  // --version belongs to the program only.
  const globals = program.options.filter((o) => o.long !== '--version');
  const walk = (cmd: Command, path: string) => {
    const visible = cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
    const own = path ? [...cmd.options, ...globals] : program.options;
    nodes.push({
      path,
      subcommands: visible.map((c) => c.name()),
      flags: unique([...flagsOf(own), '--help']),
      valued: unique(flagsOf(own.filter((o) => o.required || o.optional))),
    });
    for (const option of own) {
      const v = valuesFor(option);
      if (v?.length && option.long) values.set(`${path}|${option.long}`, v);
      if (v?.length && option.short) values.set(`${path}|${option.short}`, v);
    }
    cmd.registeredArguments.forEach((arg, i) => {
      const v = ARG_COMPLETIONS.get(arg) ?? arg.argChoices;
      if (v?.length) args.set(`${path}|${i + 1}`, v);
    });
    // An alias (`link ls`) completes as its command does; Tab offers only the full names.
    for (const sub of visible) for (const name of [sub.name(), ...sub.aliases()]) walk(sub, path ? `${path} ${name}` : name);
  };
  walk(program, '');
  return { nodes, values, args };
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function bashCase(name: string, entries: Array<[string, readonly string[]]>): string {
  const lines = entries.map(([k, v]) => `    ${q(k)}) echo ${q(v.join(' '))} ;;`).join('\n');
  return `${name}() {\n  case "$1" in\n${lines}\n  esac\n}`;
}

export function bashScript(tree: Tree): string {
  return `# smslink completion for bash. Install: smslink completion bash > /etc/bash_completion.d/smslink
# (or: source <(smslink completion bash) in ~/.bashrc)
${bashCase('_smslink_subcommands', tree.nodes.map((n) => [n.path, n.subcommands]))}
${bashCase('_smslink_flags', tree.nodes.map((n) => [n.path, n.flags]))}
${bashCase('_smslink_valued', tree.nodes.map((n) => [n.path, n.valued]))}
${bashCase('_smslink_values', [...tree.values.entries()])}
${bashCase('_smslink_args', [...tree.args.entries()])}
# Offers the candidates of $2 (one a line) that start with $1, each quoted as the shell reads it back
# (printf %q). Never compgen -W, which expands $(...) in what it is given: a profile name is data.
_smslink_offer() {
  local w
  COMPREPLY=()
  while IFS= read -r w; do
    [[ -n "$w" && "$w" == "$1"* ]] && COMPREPLY+=("$(printf '%q' "$w")")
  done <<< "$2"
}
# Candidates: a word list, files, or the profiles of the config store (read now, by smslink itself).
_smslink_reply() {
  local nl=$'\\n'
  case "$1" in
    ${FILES}) _smslink_offer "$2" "$(compgen -f -- "$2")" ;;
    ${PROFILES}) _smslink_offer "$2" "$("\${COMP_WORDS[0]}" config profiles -q 2>/dev/null)" ;;
    *) _smslink_offer "$2" "\${1// /$nl}" ;;
  esac
}
_smslink() {
  local cur cmd="" i w n=0 flag=""
  cur="\${COMP_WORDS[COMP_CWORD]}"
  # The command path (not "path": zsh ties that to PATH), the positional arguments after it, and a flag still waiting for its value.
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if [[ -n "$flag" ]]; then
      flag=""
    elif [[ "$w" == -* ]]; then
      case " $(_smslink_valued "$cmd") " in *" $w "*) flag="$w" ;; esac
    elif [[ $n -eq 0 && " $(_smslink_subcommands "$cmd") " == *" $w "* ]]; then
      cmd="\${cmd:+$cmd }$w"
    else
      n=$((n + 1))
    fi
  done
  if [[ -n "$flag" ]]; then
    # Its values when they are known, else nothing: never subcommands.
    _smslink_reply "$(_smslink_values "$cmd|$flag")" "$cur"
  elif [[ "$cur" == -* ]]; then
    _smslink_reply "$(_smslink_flags "$cmd")" "$cur"
  elif [[ -n "$(_smslink_args "$cmd|$((n + 1))")" ]]; then
    _smslink_reply "$(_smslink_args "$cmd|$((n + 1))")" "$cur"
  elif [[ $n -eq 0 ]]; then
    _smslink_reply "$(_smslink_subcommands "$cmd")" "$cur"
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

/** A fish candidate list: words, files (-F) or the profiles read when Tab is pressed (fish quotes a candidate as it inserts it, and never expands one). */
function fishValues(v: readonly string[]): string {
  if (v[0] === FILES) return ' -rF';
  if (v[0] === PROFILES) return ` -xa ${q('(smslink config profiles -q 2>/dev/null)')}`;
  return ` -xa ${q(v.join(' '))}`;
}

export function fishScript(tree: Tree): string {
  const lines = [
    '# smslink completion for fish. Install: smslink completion fish > ~/.config/fish/completions/smslink.fish',
    '# Prints the command path, then how many positional arguments follow it.',
    'function __smslink_where',
    '    set -l words (commandline -opc)',
    '    set -l path ""',
    '    set -l n 0',
    '    set -l flag ""',
    '    for w in $words[2..-1]',
    '        if test -n "$flag"',
    '            set flag ""',
    '        else if string match -q -- "-*" $w',
    '            contains -- $w (__smslink_valued "$path"); and set flag $w',
    '        else if test $n -eq 0; and contains -- $w (__smslink_subcommands "$path")',
    '            set path (string trim -- "$path $w")',
    '        else',
    '            set n (math $n + 1)',
    '        end',
    '    end',
    '    echo $path',
    '    echo $n',
    'end',
    'function __smslink_at',
    '    set -l where (__smslink_where)',
    '    test "$where[1]" = "$argv[1]"; and test "$where[2]" = "$argv[2]"',
    'end',
  ];
  const fishCase = (name: string, entries: Array<[string, readonly string[]]>) => [
    `function ${name}`,
    '    switch $argv[1]',
    ...entries.map(([k, v]) => `        case ${q(k)}\n            printf "%s\\n" ${v.map(q).join(' ')}`),
    '    end',
    'end',
  ];
  lines.push(...fishCase('__smslink_subcommands', tree.nodes.map((n) => [n.path, n.subcommands])));
  lines.push(...fishCase('__smslink_valued', tree.nodes.map((n) => [n.path, n.valued])));
  lines.push('complete -c smslink -f');
  for (const node of tree.nodes) {
    const at = (n: number) => `__smslink_at ${q(node.path)} ${n}`;
    if (node.subcommands.length) lines.push(`complete -c smslink -n ${q(at(0))} -a ${q(node.subcommands.join(' '))}`);
    for (const [key, v] of tree.args) {
      const [path, n] = key.split('|');
      if (path === node.path) lines.push(`complete -c smslink -n ${q(at(Number(n) - 1))}${fishValues(v)}`);
    }
    const cond = `test (__smslink_where)[1] = ${q(node.path)}`;
    for (const flag of node.flags) {
      const v = tree.values.get(`${node.path}|${flag}`);
      const name = flag.startsWith('--') ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`;
      // A flag that takes a value without known ones: -x (a value, no files), so fish offers nothing after it.
      const arg = v ? fishValues(v) : node.valued.includes(flag) ? ' -x' : '';
      lines.push(`complete -c smslink -n ${q(cond)} ${name}${arg}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

const SCRIPTS: Record<string, (t: Tree) => string> = { bash: bashScript, zsh: zshScript, fish: fishScript };

export const COMPLETION: CommandDef = {
  path: ['completion'],
  summary: 'Print a shell completion script (bash, zsh or fish)',
  flags: (cmd) => cmd.argument('<shell>', 'bash, zsh or fish'),
  examples: [
    'source <(smslink completion bash)          # in ~/.bashrc',
    'source <(smslink completion zsh)           # in ~/.zshrc',
    'smslink completion fish > ~/.config/fish/completions/smslink.fish',
  ],
  async run(ctx, _opts, [shell], cmd) {
    const make = SCRIPTS[shell as string];
    if (!make) throw new UsageError(invalidValue('<shell>', String(shell), oneOf(Object.keys(SCRIPTS)), Object.keys(SCRIPTS)));
    ctx.stdout.write(make(commandTree(cmd.parent!)));
  },
};
