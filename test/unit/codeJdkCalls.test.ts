import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { CallGraph, memberName } from '../../src/core/code/index/callGraph';
import { CodeIndex } from '../../src/core/code/index/codeIndex';
import { callChainTool } from '../../src/core/tools/callChain';
import { silentLogger } from '../support/silentLogger';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { javaVersion } from '../support/jdk';

/**
 * A project without the JDK's sources: calls into the JDK are typed from the signature table
 * (jdkSignatures.ts) and come out as calls leaving the project, with the owner javac gives them;
 * lambda parameters are typed from the functional interface of the callee's parameter; a call on
 * a type nobody declares stays unresolved. The project compiles with javac, so the expectations
 * are about real Java.
 */

const FILES: Record<string, string> = {
  'src/main/java/demo/Greeter.java': `package demo;

public class Greeter {
    public String greet(String who) { return "hi " + who; }
}
`,
  'src/main/java/demo/Uses.java': `package demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

public class Uses {
    private final Map<String, List<String>> byKey = new java.util.HashMap<>();

    String build(Object x) {
        return new StringBuilder().append(x).toString();
    }

    List<String> trimmed(List<String> list) {
        return list.stream().map(s -> s.trim()).collect(Collectors.toList());
    }

    void group(String k, String v) {
        byKey.computeIfAbsent(k, key -> new ArrayList<>(key.length())).add(v);
    }

    String first(String k) {
        return byKey.get(k).get(0).toUpperCase();
    }

    void greetAll(List<Greeter> greeters) {
        greeters.forEach(g -> g.greet("all"));
    }

    int chained(StringBuilder sb, String a, char b) {
        return sb.append(a).append(b).reverse().length();
    }

    String io(String name) {
        try (java.io.BufferedReader r = new java.io.BufferedReader(new java.io.FileReader(name))) {
            return r.readLine();
        } catch (java.io.IOException | IllegalStateException e) {
            return e.getMessage();
        }
    }

    void unknown(Object o) {
        com.thirdparty.Lib.make().run();
        ((com.thirdparty.Widget) o).spin(w -> w.turn());
    }
}
`,
};

const root = makeTree(FILES, 'ab-jdkcalls-');

async function build(): Promise<{ index: CodeIndex; graph: CallGraph }> {
  const index = new CodeIndex(new NodeWorkspace(root));
  await index.ready();
  return { index, graph: new CallGraph(index) };
}

const sorted = (a: string[]): string[] => [...a].sort();

function callees(index: CodeIndex, graph: CallGraph, method: string): { resolved: string[]; unresolved: string[] } {
  const owner = index.findTypes('demo.Uses')[0];
  assert.ok(owner);
  const m = owner.type.methods.find((x) => x.name === method);
  assert.ok(m, method);
  const resolved: string[] = [];
  const unresolved: string[] = [];
  for (const r of graph.callees({ owner, method: m })) {
    const name = memberName(r.site);
    if (r.owner) resolved.push(`${r.owner}#${name}${r.targets.length ? ' (project)' : ''}`);
    else unresolved.push(`${r.site.text ? `${r.site.text}.` : ''}${name}`);
  }
  // Sorted: the parser lists a chain's calls outermost first.
  return { resolved: resolved.sort(), unresolved: unresolved.sort() };
}

test('the test project is real Java: javac compiles it, stubbing only the third-party types', { skip: !javaVersion() && 'no JDK' }, () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-jdkcalls-javac-'));
  try {
    const third = path.join(out, 'third');
    fs.mkdirSync(path.join(third, 'com/thirdparty'), { recursive: true });
    fs.writeFileSync(path.join(third, 'com/thirdparty/Lib.java'), 'package com.thirdparty; public class Lib { public static Lib make() { return new Lib(); } public void run() {} }');
    fs.writeFileSync(
      path.join(third, 'com/thirdparty/Widget.java'),
      'package com.thirdparty; public class Widget { public void spin(java.util.function.Consumer<Widget> c) {} public void turn() {} }',
    );
    const sources = [...Object.keys(FILES).map((f) => path.join(root, f)), path.join(third, 'com/thirdparty/Lib.java'), path.join(third, 'com/thirdparty/Widget.java')];
    execFileSync('javac', ['-d', path.join(out, 'classes'), ...sources], { stdio: 'pipe' });
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});

test('calls into the JDK without its sources resolve to the JDK owner javac names, as calls leaving the project', async () => {
  const { index, graph } = await build();
  assert.equal(index.findTypes('java.lang.StringBuilder').length, 0, 'the JDK is not part of the project');
  assert.deepEqual(callees(index, graph, 'build').resolved, ['java.lang.StringBuilder#<init>', 'java.lang.StringBuilder#append', 'java.lang.StringBuilder#toString']);
  assert.deepEqual(callees(index, graph, 'trimmed'), {
    resolved: sorted(['java.util.List#stream', 'java.util.stream.Stream#map', 'java.lang.String#trim', 'java.util.stream.Stream#collect', 'java.util.stream.Collectors#toList']),
    unresolved: [],
  });
  assert.deepEqual(callees(index, graph, 'group'), {
    resolved: sorted(['java.util.Map#computeIfAbsent', 'java.util.ArrayList#<init>', 'java.lang.String#length', 'java.util.List#add']),
    unresolved: [],
  });
  assert.deepEqual(callees(index, graph, 'first').resolved, sorted(['java.util.Map#get', 'java.util.List#get', 'java.lang.String#toUpperCase']));
  // A multi-catch parameter has its alternatives' nearest common superclass, as javac erases it.
  assert.deepEqual(
    callees(index, graph, 'io').resolved,
    sorted(['java.io.BufferedReader#<init>', 'java.io.FileReader#<init>', 'java.io.BufferedReader#readLine', 'java.lang.Exception#getMessage']),
  );
  assert.deepEqual(
    callees(index, graph, 'chained').resolved,
    sorted(['java.lang.StringBuilder#append', 'java.lang.StringBuilder#append', 'java.lang.StringBuilder#reverse', 'java.lang.StringBuilder#length']),
  );
});

test('a lambda parameter typed from List<Greeter>.forEach reaches the project method', async () => {
  const { index, graph } = await build();
  assert.deepEqual(callees(index, graph, 'greetAll').resolved, sorted(['java.util.List#forEach', 'demo.Greeter#greet (project)']));
});

test('calls on types neither the project nor the table declares stay unresolved, lambdas passed to them too', async () => {
  const { index, graph } = await build();
  const { resolved, unresolved } = callees(index, graph, 'unknown');
  // `Lib.make()` is a static call on a named type: its owner is known, its return type is not.
  assert.deepEqual(resolved, ['com.thirdparty.Lib#make', 'com.thirdparty.Widget#spin']);
  assert.deepEqual(unresolved, ['com.thirdparty.Lib.make().run', 'w.turn']);
});

test('call_chain shows JDK callees as external and keeps the unresolved ones apart', async () => {
  const out = await callChainTool.handler(callChainTool.params.parse({ method: 'demo.Uses.trimmed', direction: 'callees' }), {
    workspace: new NodeWorkspace(root),
    callId: 't',
    signal: new AbortController().signal,
    log: silentLogger,
    paths: {},
  });
  const s = out.structured as { callees: Array<{ children: Array<{ external?: string }>; unresolved?: unknown[] }> };
  const externals = (s.callees[0]?.children ?? []).map((c) => c.external).sort();
  assert.deepEqual(externals, sorted(['java.util.List.stream', 'java.util.stream.Stream.map', 'java.lang.String.trim', 'java.util.stream.Stream.collect', 'java.util.stream.Collectors.toList']));
  assert.equal(s.callees[0]?.unresolved, undefined);
});
