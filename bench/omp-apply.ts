// Times the reference implementation's pure patch application for
// cmd/hostbench: @oh-my-pi/hashline's parser and applier, in process, on
// the inputs hostbench writes to the job file named by the first argument.
// Process start, module loading and the JIT's first runs are excluded:
// each patch is applied `warmup` times before `rounds` timed runs of
// `iterations` applications each.
//
// Each application is what hostd's hashline.Run does, text in and text out:
// parse the patch (with its [PATH#TAG] header, the tag computed here with
// the reference's own hash) and apply its edits to the text. No path is
// passed to the applier, so its optional tree-sitter syntax probe does not
// run: the reference's fastest path.
//
// Output (stdout, JSON): {bun, hashline, results: [{name, sha256,
// warnings, roundsNs}]}. sha256 is the digest of the patched text, so
// hostbench can check that both implementations produced the same file.

import { Patch, applyEdits, computeFileHash } from "@oh-my-pi/hashline";
import pkg from "@oh-my-pi/hashline/package.json";

interface Job {
	path: string;
	text: string;
	warmup: number;
	iterations: number;
	rounds: number;
	patches: { name: string; ops: string }[];
}

function applyOnce(text: string, patch: string): { text: string; warnings: readonly string[] } {
	const section = Patch.parseSingle(patch);
	const result = applyEdits(text, section.edits);
	return { text: result.text, warnings: [...section.warnings, ...(result.warnings ?? [])] };
}

function sha256(text: string): string {
	return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

const jobPath = Bun.argv[2];
if (!jobPath) {
	console.error("usage: bun omp-apply.ts JOB.json");
	process.exit(2);
}
const job: Job = await Bun.file(jobPath).json();
const header = `[${job.path}#${computeFileHash(job.text)}]\n`;
const results = [];
let sink = 0; // keeps the timed results alive
for (const p of job.patches) {
	const patch = header + p.ops;
	const first = applyOnce(job.text, patch);
	for (let i = 0; i < job.warmup; i++) sink += applyOnce(job.text, patch).text.length;
	const roundsNs: number[] = [];
	for (let r = 0; r < job.rounds; r++) {
		Bun.gc(true); // start each timed round from a collected heap, as hostbench does for hostd
		const t0 = Bun.nanoseconds();
		for (let i = 0; i < job.iterations; i++) sink += applyOnce(job.text, patch).text.length;
		roundsNs.push(Bun.nanoseconds() - t0);
	}
	results.push({ name: p.name, sha256: sha256(first.text), warnings: first.warnings, roundsNs });
}
console.log(JSON.stringify({ bun: Bun.version, hashline: pkg.version, sink, results }));
