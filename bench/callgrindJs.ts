/**
 * A callgrind file's self cost by function, JIT-compiled JavaScript named: callgrind knows V8's generated code only by
 * address, and Node's `--perf-basic-prof` map (`/tmp/perf-<pid>.map`) says which function each address range is.
 * `node --import tsx bench/callgrindJs.ts <requests> <callgrind.out> [+|-<callgrind.out> ...]`: costs per request, each
 * file's perf map found by its `pid:` line; files after the first are added or taken away (`+`/`-`), so that one path's
 * profile can be set against others' (the gateway forwarding, less the pass-through and the edge's answering, plus bare
 * node:http: what the gateway's forwarding spends beyond its allowance, by function). Pair with `INSTRUCTIONS_OUT=<dir>
 * INSTRUCTIONS_NODE_FLAGS=--perf-basic-prof node --import tsx bench/instructions.ts <case>`. `TOP=n` lines (40);
 * `CALLERS=<regex>`: who calls the functions it matches, and what those calls cost with all they call.
 */
import { readFileSync } from 'node:fs';
import { fmt } from './harness.js';

const [requestsArg, ...files] = process.argv.slice(2);
const requests = Number(requestsArg);
const top = Number(process.env.TOP ?? 40);

interface Range {
  start: number;
  end: number;
  name: string;
}

/** JIT code ranges, sorted by start, from a perf map: `<start hex> <size hex> <name>` a line. */
const rangesOf = (pid: string | undefined): Range[] => (pid ? readFileSync(`/tmp/perf-${pid}.map`, 'utf8') : '')
  .split('\n')
  .filter(Boolean)
  .map((line) => {
    const [start, size, ...name] = line.split(' ');
    return { start: parseInt(start, 16), end: parseInt(start, 16) + parseInt(size, 16), name: name.join(' ') };
  })
  .sort((a, b) => a.start - b.start);

/** The JIT function an address falls in (the last range starting at or before it that still covers it). */
function jitName(ranges: Range[], address: number): string | undefined {
  let lo = 0;
  let hi = ranges.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ranges[mid].start <= address) (found = mid), (lo = mid + 1);
    else hi = mid - 1;
  }
  return found >= 0 && address < ranges[found].end ? ranges[found].name : undefined;
}

/**
 * One callgrind file's self cost by function name, JIT addresses named by the perf map of its process; with `callers`,
 * instead the inclusive cost of the calls made to each function whose name it matches, by caller.
 */
function selfCosts(file: string, callers?: RegExp): Map<string, number> {
  const text = readFileSync(file, 'utf8');
  const ranges = rangesOf(text.match(/^pid: (\d+)/m)?.[1]);
  // Callgrind compresses names: `fn=(7) name` defines id 7, a later `fn=(7)` refers to it; `cfn=` shares the table.
  const names = new Map<string, string>();
  const nameOf = (spec: string) => {
    const m = spec.match(/^\((\d+)\)(?: (.*))?$/);
    if (!m) return spec;
    if (m[2] !== undefined) names.set(m[1], m[2]);
    return names.get(m[1]) ?? spec;
  };
  const named = (name: string) => (/^0x[0-9a-f]+$/i.test(name) ? (jitName(ranges, parseInt(name, 16)) ?? 'JIT code not in the map') : name);
  const byName = new Map<string, number>();
  const add = (name: string, cost: number) => byName.set(name, (byName.get(name) ?? 0) + cost);
  let current = '';
  let callee = '';
  let skipNext = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('fn=')) current = named(nameOf(line.slice(3)));
    else if (line.startsWith('cfn=')) callee = named(nameOf(line.slice(4)));
    else if (line.startsWith('calls=')) skipNext = true;
    else if (/^[+\-*\d]/.test(line)) {
      const cost = Number(line.split(' ')[1] ?? 0);
      // The line after `calls=` is the call's inclusive cost, not the caller's own.
      if (skipNext) {
        skipNext = false;
        if (callers?.test(callee) && current !== callee) add(`${current}  ->  ${callee}`, cost);
      } else if (!callers) add(current, cost);
    }
  }
  return byName;
}

const sum = new Map<string, number>();
for (const [i, spec] of files.entries()) {
  const sign = i > 0 && spec.startsWith('-') ? -1 : 1;
  const file = i > 0 && /^[+-]/.test(spec) ? spec.slice(1) : spec;
  for (const [name, cost] of selfCosts(file, process.env.CALLERS ? new RegExp(process.env.CALLERS) : undefined)) sum.set(name, (sum.get(name) ?? 0) + (sign * cost) / requests);
}
const total = [...sum.values()].reduce((a, b) => a + b, 0);
console.log(`${fmt(total)} instructions per request in all`);
const line = ([name, cost]: [string, number]) => console.log(`${fmt(cost).padStart(9)}  ${name}`);
const sorted = [...sum].sort((a, b) => b[1] - a[1]);
sorted.slice(0, top).forEach(line);
if (files.length > 1) {
  console.log('... most taken away:');
  sorted.slice(-Math.min(top, 15)).reverse().forEach(line);
}
