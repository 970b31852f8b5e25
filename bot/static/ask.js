// confbot /ask page: asks through the JSON API and renders answers, sources, the
// attribution breakdown and the trace. Every text from the server is inserted with
// textContent (never innerHTML), and only http(s) URLs become links.
"use strict";

(function () {
  const app = document.getElementById("app");
  const turns = document.getElementById("turns");
  const form = document.getElementById("ask-form");
  const input = document.getElementById("question");
  const askButton = document.getElementById("ask-button");
  const status = document.getElementById("status");
  const scope = {
    conversation: app.dataset.conversation,
    space: app.dataset.space || null,
    page: app.dataset.page || null,
    label: app.dataset.label || null,
    root: app.dataset.root || null,
  };

  // ------------------------------------------------------------------ DOM helpers
  function el(tag, props, children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(props || {})) {
      if (name === "text") node.textContent = value;
      else if (name === "className") node.className = value;
      else node.setAttribute(name, value);
    }
    for (const child of children || []) {
      if (child === null || child === undefined) continue;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function safeUrl(url) {
    try {
      const parsed = new URL(url, window.location.href);
      return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
    } catch (e) {
      return null;
    }
  }

  function link(url, text, className) {
    const href = safeUrl(url);
    if (!href) return el("span", { text: text, className: className || "" });
    return el("a", { href: href, target: "_blank", rel: "noopener", text: text, className: className || "" });
  }

  function percent(share) {
    return (share * 100).toFixed(1) + "%";
  }

  function newConversationId() {
    const bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  // The CSRF token the server sets for a signed-in user (bot/auth.py); empty without a login.
  function csrfToken() {
    const found = document.cookie.split("; ").find((c) => c.startsWith("confbot_csrf="));
    return found ? found.slice("confbot_csrf=".length) : "";
  }

  async function api(path, body) {
    const options = body === undefined
      ? { method: "GET" }
      : { method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfToken() }, body: JSON.stringify(body) };
    const response = await fetch(path, options);
    let data = null;
    try {
      data = await response.json();
    } catch (e) {
      data = null;
    }
    if (!response.ok) {
      throw new Error((data && data.error) || response.status + " " + response.statusText);
    }
    return data;
  }

  function scoped(extra) {
    return Object.assign(
      { conversation: scope.conversation, space: scope.space, page: scope.page, label: scope.label, root: scope.root },
      extra,
    );
  }

  // A query string of `params` with the page's space and page, when it has them.
  function scopedQuery(params) {
    const query = new URLSearchParams(params);
    if (scope.space) query.set("space", scope.space);
    if (scope.page) query.set("page", scope.page);
    return query.toString();
  }

  // ------------------------------------------------------------------ rendering
  function appendSegments(node, segments, byNumber) {
    for (const segment of segments) {
      if (!segment.cite) {
        node.append(document.createTextNode(segment.text));
        continue;
      }
      // One link per cited number, so [1, 3] links both sources.
      segment.cite.forEach((number, i) => {
        const source = byNumber.get(number);
        const a = link(source.url, "[" + number + "]", "cite");
        a.title = source.title + (source.heading ? " — " + source.heading : "");
        node.append(a);
        if (i < segment.cite.length - 1) node.append(document.createTextNode(" "));
      });
    }
    return node;
  }

  // The words the page shows around a turn, in the question's language (from the server).
  function label(turn, name, fallback) {
    return (turn.labels && turn.labels[name]) || fallback;
  }

  // A source excerpt as the page shows it: a small table (header and the cited row, the
  // answer's cells marked) or the sentence holding the answer, the answer in <mark>.
  function renderExcerpt(excerpt) {
    if (!excerpt) return null;
    if (excerpt.kind === "table") {
      const marked = new Set((excerpt.marked || []).map(([r, c]) => r + ":" + c));
      const rows = excerpt.rows.map((row, r) => el("tr", {}, row.map((cell, c) =>
        el("td", {}, [marked.has(r + ":" + c) ? el("mark", { text: cell }) : cell])
      )));
      // A table the page gives no column names has no header row.
      const head = excerpt.header.some((h) => h)
        ? el("thead", {}, [el("tr", {}, excerpt.header.map((h) => el("th", { text: h })))])
        : null;
      const box = el("div", { className: "excerpt" }, [
        el("table", { className: "excerpt-table" }, [head, el("tbody", {}, rows)]),
      ]);
      if (excerpt.more) box.append(el("span", { className: "more", text: "… " + excerpt.more }));
      return box;
    }
    return el("span", { className: "excerpt" }, excerpt.pieces.map((piece) =>
      piece.marked ? el("mark", { text: piece.text }) : piece.text
    ));
  }

  // The most likely answer first, then its related (supporting) lines; a declined answer
  // says so and links the closest pages.
  function renderAnswer(turn) {
    const byNumber = new Map(turn.sources.map((s) => [s.number, s]));
    const box = el("div", { className: "answer" });
    if (turn.small_talk) {
      box.append(el("p", { text: turn.answer }));
      return box;
    }
    if (turn.declined) {
      box.classList.add("declined");
      box.append(document.createTextNode(turn.declined.message));
      turn.declined.pages.forEach((page, i) => {
        box.append(document.createTextNode(i ? ", " : " "));
        box.append(link(page.url, page.title, "closest"));
      });
      return box;
    }
    const parts = turn.parts || { answer: turn.segments, related: [] };
    box.append(el("p", { className: "label", text: label(turn, "answer", "Most likely answer") }));
    box.append(appendSegments(el("p", { className: "likely" }), parts.answer, byNumber));
    if (parts.related.length) {
      box.append(el("p", { className: "label", text: label(turn, "related", "Related") }));
      const list = el("ul", { className: "related" });
      for (const line of parts.related) list.append(appendSegments(el("li"), line, byNumber));
      box.append(list);
    }
    return box;
  }

  function sourceItem(turn, source, number) {
    const item = el("li", { value: String(number), "data-number": String(number) }, [
      link(source.url, source.title || source.page_id, "title"),
    ]);
    if (source.heading && source.heading !== source.title) {
      item.append(el("span", { className: "where", text: " — " + source.heading }));
    }
    if (source.space) item.append(el("span", { className: "space", text: " (" + source.space + ")" }));
    if (source.also_in && source.also_in.length) {
      // Near-duplicate pages (copies, drafts) folded into this one.
      const others = [" " + label(turn, "also_in", "also in") + " "];
      source.also_in.forEach((page, i) => {
        if (i) others.push(", ");
        others.push(link(page.url, page.title, "also"));
      });
      item.append(el("span", { className: "also-in" }, others));
    }
    const excerpt = renderExcerpt(source.excerpt);
    if (excerpt) item.append(excerpt);
    return item;
  }

  function renderSources(turn) {
    if (turn.small_talk) return [];
    const cited = turn.sources.filter((s) => s.cited);
    if (cited.length) {
      const items = cited.map((s) => sourceItem(turn, s, s.number));
      return [el("h3", { text: label(turn, "sources", "Sources") }), el("ol", { className: "sources" }, items)];
    }
    // Nothing cited (out of scope): show the closest pages, one line each.
    const seen = new Set();
    const closest = [];
    for (const s of turn.sources) {
      if (seen.has(s.page_id)) continue;
      seen.add(s.page_id);
      closest.push(s);
      if (closest.length === 3) break;
    }
    if (!closest.length) return [el("p", { className: "completed", text: label(turn, "nothing", "Nothing in the index matched.") })];
    const items = closest.map((s, i) => sourceItem(turn, s, i + 1));
    return [el("h3", { text: label(turn, "closest", "Closest pages") }), el("ol", { className: "sources closest" }, items)];
  }

  // Why this answer: the plain-words sentences first (shown sources linked with their
  // numbers), then a bar per group of sources with a share; sources the answer does not
  // cite are named, not linked.
  function renderExplanation(box, data, turn) {
    const byNumber = new Map(turn.sources.filter((s) => s.cited).map((s) => [s.number, s]));
    box.replaceChildren();
    box.append(el("h3", { text: label(data, "why", "Why this answer") }));
    for (const sentence of data.plain || []) {
      const p = el("p", { className: "plain" });
      for (const words of sentence) {
        if (!words.sources.length) {
          p.append(document.createTextNode(words.text));
          continue;
        }
        const first = byNumber.get(words.sources[0]);
        p.append(first ? link(first.url, words.text, "evidence-link") : el("span", { text: words.text }));
        p.append(document.createTextNode(" " + words.sources.map((n) => "[" + n + "]").join("")));
      }
      box.append(p);
    }
    box.append(el("p", { className: "method", text: label(data, data.method, data.method) }));
    if (!data.clusters.some((c) => c.share > 0)) return;
    // Clusters that got a share get a bar; the rest (0%) are counted on one line.
    const shown = data.clusters.filter((c) => c.share >= 0.0005);
    const rest = data.clusters.filter((c) => c.share < 0.0005);
    for (const cluster of shown) {
      const fill = el("div", { className: "fill" });
      fill.style.width = (cluster.share * 100).toFixed(2) + "%";
      const evidence = el("div", { className: "evidence" });
      cluster.evidences.forEach((e, i) => {
        if (i) evidence.append(document.createTextNode(", "));
        if (e.number === null) {
          evidence.append(el("span", { className: "not-cited", text: e.name + " (" + label(data, "not_cited", "not cited") + ")" }));
        } else {
          evidence.append(link(e.url, "[" + e.number + "] " + (e.name || e.title || ""), "evidence-link"));
        }
      });
      box.append(
        el("div", { className: "cluster", "data-cluster": String(cluster.cluster) }, [
          el("span", { className: "pct", text: percent(cluster.share) }),
          el("div", { className: "bar", role: "img", "aria-label": percent(cluster.share) }, [fill]),
          evidence,
        ])
      );
    }
    if (rest.length) {
      box.append(el("p", { className: "method others", text: data.no_effect || "" }));
    }
  }

  function table(headers, rows) {
    return el("table", {}, [
      el("thead", {}, [el("tr", {}, headers.map((h) => el("th", { text: h })))]),
      el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((c) =>
        el("td", { text: c === null || c === undefined ? "–" : String(c), className: typeof c === "number" ? "num" : "" })
      )))),
    ]);
  }

  function renderTrace(box, trace) {
    box.replaceChildren();
    box.append(el("h4", { text: "Question" }));
    box.append(el("p", { text: trace.question }));
    box.append(el("p", { text: "Completed: " + trace.completed_question }));
    box.append(el("p", { text: "Retrieval query: " + trace.query }));
    const notes = Object.entries(trace.completion_notes || {}).map(([k, v]) => k + "=" + JSON.stringify(v));
    if (notes.length) box.append(el("p", { text: "Completion: " + notes.join(", ") }));

    box.append(el("h4", { text: "Retrieval (rank per retriever)" }));
    const retrievers = [];
    for (const item of trace.retrieval) {
      for (const name of Object.keys(item.ranks || {})) if (!retrievers.includes(name)) retrievers.push(name);
    }
    const rows = trace.retrieval.map((item) => [
      item.number,
      Number(item.score).toFixed(4),
      ...retrievers.map((name) => {
        const rank = (item.ranks || {})[name];
        const score = (item.scores || {})[name];
        if (rank === null || rank === undefined) return null;
        return "#" + rank + (score === undefined ? "" : " (" + Number(score).toFixed(3) + ")");
      }),
      (item.shown ? "cited as [" + item.shown + "] · " : "") + item.title + (item.heading ? " — " + item.heading : ""),
    ]);
    box.append(table(["#", "fused", ...retrievers, "evidence"], rows));

    for (const [step, messages] of Object.entries(trace.messages || {})) {
      if (!messages) continue;
      // the embedded answerer reads its prompt in-process: nothing was sent anywhere
      const heading = trace.model === "extractive"
        ? "Prompt read by the offline answerer (" + step + "; nothing was sent)"
        : "Prompt sent (" + step + ")";
      box.append(el("h4", { text: heading }));
      for (const message of messages) {
        box.append(el("pre", { text: "--- " + message.role + "\n" + message.content }));
      }
    }
    box.append(el("h4", { text: "Timings (ms)" }));
    box.append(table(["step", "ms"], Object.entries(trace.timings).map(([k, v]) => [k.replace(/_ms$/, ""), v])));
    box.append(el("p", { className: "method", text: "Model: " + trace.model }));
  }

  function renderTurn(turn) {
    const node = el("article", { className: "turn", "data-turn": String(turn.turn) });
    node.append(el("p", { className: "question", text: turn.question }));
    if (turn.clarification) {  // a question asked back: its text alone
      node.append(el("div", { className: "answer clarification" }, [el("p", { text: turn.answer })]));
      return node;
    }
    if (turn.spelling) {
      node.append(el("p", { className: "completed", text: "Searching for: " + turn.completed_question + " (" + turn.spelling + ")" }));
    } else if (turn.completed_question && turn.completed_question !== turn.question) {
      node.append(el("p", { className: "completed", text: "Answering: " + turn.completed_question }));
    }
    node.append(renderAnswer(turn));
    node.append(...renderSources(turn));

    const explainBox = el("div", { className: "explanation" });
    const explainLabel = label(turn, "explain", "Explain");
    const explain = el("button", { type: "button", className: "explain", text: explainLabel });
    explain.addEventListener("click", async () => {
      explain.disabled = true;
      explain.textContent = "Explaining…";
      try {
        renderExplanation(explainBox, await api("api/explain", scoped({ turn: turn.turn })), turn);
        explain.textContent = "Explained";
      } catch (error) {
        explainBox.replaceChildren(el("p", { className: "error", text: "Could not explain: " + error.message }));
        explain.disabled = false;
        explain.textContent = explainLabel;
      }
    });

    const note = el("span", { className: "feedback-note" });
    const feedbackLabels = [["up", label(turn, "helpful", "Helpful")], ["down", label(turn, "not_helpful", "Not helpful")]];
    const feedbackButtons = feedbackLabels.map(([value, text]) => {
      const button = el("button", { type: "button", className: "secondary feedback", "data-value": value, text: text });
      button.addEventListener("click", async () => {
        feedbackButtons.forEach((b) => { b.disabled = true; });
        try {
          await api("api/feedback", scoped({ turn: turn.turn, value: value }));
          note.textContent = "Thanks for the feedback.";
        } catch (error) {
          note.textContent = "Feedback not saved: " + error.message;
          feedbackButtons.forEach((b) => { b.disabled = false; });
        }
      });
      return button;
    });
    const actions = turn.out_of_scope || turn.small_talk ? [...feedbackButtons, note] : [explain, ...feedbackButtons, note];
    node.append(el("div", { className: "actions" }, actions));
    node.append(explainBox);
    if (turn.suggestions && turn.suggestions.length) node.append(renderSuggestions(turn.suggestions));
    else if (turn.suggestions_pending) loadSuggestions(node, turn);

    const traceBox = el("div", { className: "trace-body" }, [el("p", { text: "Loading…" })]);
    const trace = el("details", { className: "trace" }, [el("summary", { text: "Trace" }), traceBox]);
    let loaded = false;
    trace.addEventListener("toggle", async () => {
      if (!trace.open || loaded) return;
      loaded = true;
      try {
        const query = scopedQuery({ conversation: scope.conversation });
        renderTrace(traceBox, await api("api/turns/" + turn.turn + "?" + query));
      } catch (error) {
        loaded = false;
        traceBox.replaceChildren(el("p", { className: "error", text: "Could not load the trace: " + error.message }));
      }
    });
    node.append(trace);
    return node;
  }

  // Suggestions computed after the answer (they cost searches): asked for once the answer
  // is shown and put before the trace; a failure only means no suggestions.
  async function loadSuggestions(node, turn) {
    try {
      const query = scopedQuery({ conversation: scope.conversation });
      const found = await api("api/turns/" + turn.turn + "/suggestions?" + query);
      if (found.suggestions && found.suggestions.length) {
        node.insertBefore(renderSuggestions(found.suggestions), node.querySelector(".trace"));
      }
    } catch (error) {
      console.warn("no suggested follow-ups: " + error.message);
    }
  }

  // Suggested follow-ups: links that ask the question in this conversation (without
  // script, the link opens the page with the question prepared).
  function renderSuggestions(suggestions) {
    const list = el("ul", { className: "suggestions" });
    for (const question of suggestions) {
      const a = link("ask?" + scopedQuery({ q: question }), question, "suggestion");
      a.addEventListener("click", (event) => {
        event.preventDefault();
        ask(question);
      });
      list.append(el("li", {}, [a]));
    }
    return el("div", { className: "follow-ups" }, [el("p", { text: "You could also ask:" }), list]);
  }

  // ------------------------------------------------------------------ streaming
  // The answer as server-sent events (POST /api/ask/stream): the pages searched first,
  // then the answer's text as it arrives, in a provisional turn that the final turn
  // replaces. Resolves with the final turn.
  async function askStreamed(question) {
    const response = await fetch("api/ask/stream", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(scoped({ question: question })),
    });
    if (!response.ok || !response.body) {
      let data = null;
      try { data = await response.json(); } catch (e) { data = null; }
      throw new Error((data && data.error) || response.status + " " + response.statusText);
    }
    const live = el("article", { className: "turn streaming" });
    const text = el("p", { className: "streamed" });
    live.append(el("p", { className: "question", text: question }), el("div", { className: "answer" }, [text]));
    turns.append(live);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = (block.match(/^event: (.*)$/m) || [])[1];
        const data = JSON.parse((block.match(/^data: (.*)$/m) || [])[1] || "null");
        if (event === "sources") {
          status.textContent = "Writing the answer…";
          const items = data.sources.map((s) => el("li", {}, [link(s.url, s.title)]));
          live.append(el("h3", { text: "Searching these pages" }), el("ol", { className: "sources searched" }, items));
        } else if (event === "text") {
          text.append(data.text);
        } else if (event === "turn") {
          live.replaceWith(renderTurn(data));
          return data;
        } else if (event === "error") {
          live.remove();
          throw new Error(data.error);
        }
      }
    }
    live.remove();
    throw new Error("the answer stopped before it was complete");
  }

  // ------------------------------------------------------------------ the form
  async function ask(question) {
    askButton.disabled = true;
    status.textContent = "Searching…";
    try {
      await askStreamed(question);
      input.value = "";
      status.textContent = "";
    } catch (error) {
      status.textContent = "Error: " + error.message;
    } finally {
      askButton.disabled = false;
      input.focus();
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const question = input.value.trim();
    if (question) ask(question);
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  if (input.value) {
    // A link prepared the question (/ask?q=...): the user reads it, then asks.
    input.focus();
    input.setSelectionRange(input.value.length, input.value.length);
  }
  document.getElementById("new-conversation").addEventListener("click", () => {
    scope.conversation = newConversationId();
    app.dataset.conversation = scope.conversation;
    turns.replaceChildren();
    status.textContent = "New conversation.";
    input.focus();
  });
})();
