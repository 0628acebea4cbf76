// The model process of the real-model actionability runner (runner.py).
//
// It loads one GGUF model with node-llama-cpp on the CPU and answers JSON
// lines on stdin, one JSON line on stdout each:
//   {"id": N, "prompt": TEXT, "schema": SCHEMA, "max_tokens": N}
//       -> {"id": N, "text": ANSWER, "tokens_in": N, "tokens_evaluated": N,
//           "tokens_out": N, "seconds": S}
//   {"id": N, "count": TEXT} -> {"id": N, "tokens": N}
//   anything that fails   -> {"id": N, "error": MESSAGE}
// TEXT is the whole prompt, already in the model's chat format (special
// tokens such as <|im_start|> are read as such). SCHEMA is the JSON schema
// (node-llama-cpp's subset) the answer is constrained to, by a grammar.
// Decoding is greedy (temperature 0). The context keeps the tokens of the
// previous prompt: a prompt that starts the same (the system prompt and a
// stack's tool list) evaluates only the tokens after the common prefix.
//
// Usage: node llm.mjs --model PATH [--threads N] [--context TOKENS]
// It prints {"ready": true, "model": NAME, "threads": N} once loaded.
import { getLlama, LlamaCompletion } from "node-llama-cpp";
import { createInterface } from "node:readline";
import { basename } from "node:path";

function options(argv) {
    const out = { threads: 1, context: 8192 };
    for (let i = 0; i < argv.length; i += 2) {
        const [flag, value] = [argv[i], argv[i + 1]];
        if (value === undefined) throw new Error(`${flag} needs a value`);
        if (flag === "--model") out.model = value;
        else if (flag === "--threads") out.threads = Number(value);
        else if (flag === "--context") out.context = Number(value);
        else throw new Error(`unknown option ${flag}`);
    }
    if (!out.model) throw new Error("--model PATH is needed");
    if (!(out.threads >= 1) || !(out.context >= 512)) throw new Error("--threads >= 1 and --context >= 512");
    return out;
}

async function main() {
    const opts = options(process.argv.slice(2));
    const llama = await getLlama({ gpu: false, build: "never", logLevel: "error" });
    const model = await llama.loadModel({ modelPath: opts.model });
    const context = await model.createContext({ threads: opts.threads, contextSize: opts.context });
    const sequence = context.getSequence();
    const completion = new LlamaCompletion({ contextSequence: sequence });
    const grammars = new Map();
    const grammarFor = async (schema) => {
        const key = JSON.stringify(schema);
        if (!grammars.has(key)) grammars.set(key, await llama.createGrammarForJsonSchema(schema));
        return grammars.get(key);
    };
    const write = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
    write({ ready: true, model: basename(opts.model), threads: opts.threads });

    const answer = async (req) => {
        if (typeof req.count === "string") return { tokens: model.tokenize(req.count, false).length };
        const tokens = model.tokenize(req.prompt, true);
        const before = sequence.contextTokens;
        let common = 0;
        while (common < before.length && common < tokens.length && before[common] === tokens[common]) common++;
        const started = performance.now();
        const text = await completion.generateCompletion(tokens, {
            grammar: await grammarFor(req.schema),
            temperature: 0,
            maxTokens: req.max_tokens ?? 512,
        });
        const out = model.tokenize(text, false).length;
        return {
            text,
            tokens_in: tokens.length,
            tokens_evaluated: tokens.length - Math.min(common, tokens.length - 1),
            tokens_out: out,
            seconds: (performance.now() - started) / 1000,
        };
    };

    // One request at a time, in order.
    let queue = Promise.resolve();
    const lines = createInterface({ input: process.stdin });
    lines.on("line", (line) => {
        queue = queue.then(async () => {
            let req;
            try {
                req = JSON.parse(line);
                write({ id: req.id, ...(await answer(req)) });
            } catch (e) {
                write({ id: req?.id ?? null, error: String(e?.message ?? e) });
            }
        });
    });
    lines.on("close", () => queue.then(() => process.exit(0)));
}

main().catch((e) => {
    process.stderr.write(`llm.mjs: ${e?.message ?? e}\n`);
    process.exit(2);
});
