#!/usr/bin/env node
// A Bluff League starter bot: protocol v1, every game, Node 20 standard library only.
//
//     node bot.js --port 8001                        # 1. no secret yet: accepts every call
//     # 2. register http://127.0.0.1:8001 with the platform: its answer has your secret
//     BOT_SECRET=whsec_... node bot.js --port 8001   # 3. restart it with that secret
//
// The same bot as ../starter_bot/bot.py, line for line where it can be: it checks each call's
// Standard Webhooks signature, answers the handshake, and plays a legal random action: from
// `legal_actions` when the platform sends the list, else from the compact `legal_description`
// (DTC offers over 256: its handshake says `compact_legal_actions: true`, so the platform may
// leave those long lists out). Replace choose() with your strategy. Each request gets one line
// on stderr: its path, the match and turn, and the verdict
// (`POST /move match 7 turn 3: ok {"type":"call","target":1,"number":3}`, or `bad signature`).
"use strict";

const crypto = require("node:crypto");
const http = require("node:http");
const { parseArgs } = require("node:util");

const NAME = "starter bot";
const AUTHOR = "you";
const GAMES = ["dtc", "great_dalmuti", "dutch", "dice_cup", "dot"];
const TOLERANCE_S = 300; // refuse signatures more than 5 minutes off: stops replays of old calls
const MAX_BODY = 4 * 1024 * 1024;
// The platform reuses an idle connection for up to 30 s; keep ours open longer, so it is always
// the platform that drops one (Node's default, 5 s, could close it as a call goes out).
const KEEP_ALIVE_MS = 65_000;

// ---- your strategy -----------------------------------------------------------------------------

/** An action for `body.seat` from what the platform says it may do. `body.view` holds everything
 * your seat may know (your cards, public counts...). */
function choose(body) {
  const legal = body.legal_actions;
  if (legal && legal.length) {
    return legal[randint(0, legal.length - 1)];
  }
  const description = body.legal_description;
  if (description.type === "offer") { // DTC: too many offers to list
    return randomOffer(description);
  }
  throw new Error(`unknown description ${JSON.stringify(description.type)}`);
}

/** A legal DTC offer from its description: `min_count` cards from the hand, with a value of at
 * least `min_value` (any count above `min_count` could take any value). */
function randomOffer(d) {
  const pool = [];
  for (const [rank, n] of Object.entries(d.hand)) {
    for (let i = 0; i < n; i++) pool.push(rank);
  }
  if (d.min_count > pool.length) throw new Error("min_count is larger than the hand");
  const cards = {};
  for (let i = 0; i < d.min_count; i++) { // a random sample without replacement
    const j = randint(i, pool.length - 1);
    [pool[i], pool[j]] = [pool[j], pool[i]];
    cards[pool[i]] = (cards[pool[i]] || 0) + 1;
  }
  return { type: "offer", cards, value: randint(d.min_value, d.values[1]) };
}

/** A random integer in [low, high], both included. */
function randint(low, high) {
  return low + Math.floor(Math.random() * (high - low + 1));
}

// ---- protocol plumbing -------------------------------------------------------------------------

/** The HMAC key of a `whsec_<base64>` secret. */
function secretKey(secret) {
  return Buffer.from(secret.replace(/^whsec_/, ""), "base64");
}

/** Standard Webhooks: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, fresh timestamp. After
 * a secret rotation a call carries two signatures (new and previous secret): one is enough. */
function signatureOk(key, headers, body) {
  const msgId = headers["webhook-id"] || "";
  const timestamp = headers["webhook-timestamp"] || "";
  if (!msgId || !/^\d+$/.test(timestamp)
      || Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_S) {
    return false;
  }
  const expected = Buffer.from(crypto.createHmac("sha256", key)
    .update(`${msgId}.${timestamp}.`).update(body).digest("base64"));
  for (const candidate of (headers["webhook-signature"] || "").split(/\s+/)) {
    const comma = candidate.indexOf(",");
    if (comma < 0 || candidate.slice(0, comma) !== "v1") continue;
    const value = Buffer.from(candidate.slice(comma + 1));
    // timingSafeEqual needs equal lengths; the length of a v1 signature is no secret.
    if (value.length === expected.length && crypto.timingSafeEqual(value, expected)) {
      return true;
    }
  }
  return false;
}

/** `POST /move match 7 turn 3: ok {...}`: the request, the match id and turn when its body has
 * them (never read from a call whose signature failed: no body is passed then), and what the bot
 * answered. The path is %-escaped and the values go through JSON, so a request cannot put a line
 * break or a terminal escape in the log. */
function logLine(method, path, body, verdict) {
  let where = "";
  if (body !== null && typeof body === "object" && !Array.isArray(body)) {
    const match = body.match;
    if (match !== null && typeof match === "object" && "id" in match) {
      where += ` match ${JSON.stringify(match.id)}`;
    }
    if ("turn" in body) where += ` turn ${JSON.stringify(body.turn)}`;
  }
  const escape = (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`;
  const safePath = path.replace(/[^\x21-\x7e]/g, escape);
  return `${method} ${safePath}${where}: ${verdict}`;
}

/** `raw` as JSON, or null if it is not. */
function parsed(raw) {
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    return null;
  }
}

function answer(req, res, status, payload, verdict, body = null, close = false) {
  // The log line first: once the caller has the answer, its line is written (console.error to
  // a file or a pipe is synchronous).
  console.error(logLine(req.method, req.url, body, verdict));
  const data = Buffer.from(JSON.stringify(payload));
  const headers = { "Content-Type": "application/json", "Content-Length": data.length };
  if (close) headers.Connection = "close"; // Node closes the connection after this answer
  res.writeHead(status, headers);
  res.end(data); // headers and body in one write; Node sets TCP_NODELAY on each connection
}

/** The request path without the query string your URL may carry (`/move?team=blue`). */
function route(req) {
  return req.url.split("?", 1)[0].split("#", 1)[0].replace(/\/+$/, "");
}

/** Read the body (at most MAX_BODY bytes), check its signature, then answer the call. */
function handle(key, req, res) {
  const length = req.headers["content-length"];
  if (length !== undefined && (!/^\d+$/.test(length) || Number(length) > MAX_BODY)) {
    answer(req, res, 413, { error: "too large" }, "too large", null, true);
    return;
  }
  const chunks = [];
  let size = 0;
  req.on("data", (chunk) => {
    size += chunk.length;
    if (size > MAX_BODY) { // no Content-Length (chunked): stop reading past the cap
      req.removeAllListeners("data").removeAllListeners("end").resume();
      answer(req, res, 413, { error: "too large" }, "too large", null, true);
      return;
    }
    chunks.push(chunk);
  });
  req.on("end", () => {
    const raw = Buffer.concat(chunks);
    if (key !== null && !signatureOk(key, req.headers, raw)) {
      answer(req, res, 401, { error: "bad signature" }, "bad signature");
      return;
    }
    const path = route(req);
    if (req.method === "GET") {
      if (path !== "") {
        answer(req, res, 404, { error: "not found" }, "not found");
        return;
      }
      // compact_legal_actions: choose() reads legal_description when a long list is left out.
      answer(req, res, 200, { apiversion: "1", name: NAME, author: AUTHOR, games: GAMES,
                              compact_legal_actions: true }, "ok");
    } else if (req.method !== "POST") {
      answer(req, res, 501, { error: "unsupported method" }, "unsupported method");
    } else if (path === "/move") {
      let body = null;
      let action;
      try {
        body = JSON.parse(raw.toString("utf8"));
        action = choose(body);
      } catch (err) {
        answer(req, res, 400, { error: String(err.message) },
               `bad request: ${JSON.stringify(String(err))}`, body);
        return;
      }
      answer(req, res, 200, { action }, `ok ${JSON.stringify(action)}`, body);
    } else if (path === "/start" || path === "/end") {
      answer(req, res, 200, {}, "ok", parsed(raw)); // notices: the body is read for the log
    } else {
      answer(req, res, 404, { error: "not found" }, "not found");
    }
  });
}

/** A ready server; `secret` null accepts every call, signed or not: how the bot answers the
 * registration handshake before you have its secret (then restart it with the secret). */
function makeServer(secret) {
  const key = secret ? secretKey(secret) : null;
  const server = http.createServer({ noDelay: true }, (req, res) => handle(key, req, res));
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  return server;
}

function main() {
  const usage = "usage: node bot.js [--host HOST] [--port PORT]   (env: BOT_PORT, BOT_SECRET)";
  let values;
  try {
    ({ values } = parseArgs({ options: {
      host: { type: "string", default: "127.0.0.1" },
      // 8001: `make run` serves the platform itself on 8000.
      port: { type: "string", default: process.env.BOT_PORT || "8001" },
      help: { type: "boolean", short: "h" },
    } }));
  } catch (err) {
    console.error(`${usage}\n${err.message}`);
    process.exit(2);
  }
  if (values.help) {
    console.log("A Bluff League starter bot: protocol v1, every game, Node standard library"
                + ` only.\n${usage}`);
    return;
  }
  if (!/^\d+$/.test(values.port) || Number(values.port) > 65535) {
    console.error(`${usage}\n--port: not a port number: ${values.port}`);
    process.exit(2);
  }
  const secret = process.env.BOT_SECRET || null;
  const server = makeServer(secret);
  server.on("error", (err) => {
    console.error(`cannot serve on ${values.host}:${values.port}: ${err.message}`);
    process.exit(1);
  });
  server.listen(Number(values.port), values.host, () => {
    const url = `http://${values.host}:${server.address().port}`;
    console.log(`${NAME} on ${url} (${secret ? "checking signatures" : "NO SECRET"})`);
    if (!secret) {
      console.error("WARNING: BOT_SECRET is not set, so this bot accepts EVERY call, signed or "
        + "not.\n"
        + `  That is only for registering it: register ${url}, then restart it with\n`
        + `  BOT_SECRET=<the whsec_... secret the registration answered> so it refuses\n`
        + `  calls that are not from the platform.`);
    }
  });
}

if (require.main === module) {
  main();
}

module.exports = { choose, randomOffer, secretKey, signatureOk, logLine, makeServer };
