// The try-it panel (試玩) of the rulebook and comparison pages: the reader's question answered
// by the package's own interpreter (harness.frontends.tryit), run in the page by Pyodide.
//
// Nothing loads until a reader opens a panel. The runtime comes from beside the pages (the
// site build copied it: tryit/runtime/ and tryit/data/) or from the hosted Pyodide that
// mkdocs.yml's `extra.tryit_runtime` names. A page opened from disk may load scripts but not
// fetch files or import modules, so the files Pyodide would fetch are scripts holding their
// bytes, and Pyodide's fetches of them are answered from those bytes.
(function () {
  "use strict";
  const CONFIG = window.GD_TRYIT_CONFIG || { runtime: "absent", reason: "no configuration" };
  const script = document.currentScript;
  const BASE = new URL(".", script ? script.src : location.href).href; // the tryit/ folder
  const DATA = BASE + "data/";
  let booting = null; // the one start of the interpreter, shared by every panel of the page

  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      const tag = document.createElement("script");
      tag.src = src;
      tag.onload = resolve;
      tag.onerror = function () { reject(new Error("cannot load " + src)); };
      document.head.appendChild(tag);
    });
  }

  // The bytes a data script (tryit/data/NAME.js) holds, decoded by the browser itself.
  async function dataBytes(name, realFetch) {
    await loadScript(DATA + name + ".js");
    const encoded = (window.GD_TRYIT_DATA || {})[name];
    if (encoded === undefined) throw new Error("no data in " + name + ".js");
    const response = await realFetch("data:application/octet-stream;base64," + encoded);
    delete window.GD_TRYIT_DATA[name];
    return new Uint8Array(await response.arrayBuffer());
  }

  async function localPyodide() {
    const realFetch = window.fetch.bind(window);
    await loadScript(BASE + "runtime/pyodide.js");
    const bytes = {};
    for (const name of ["pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]) {
      bytes[name] = await dataBytes(name, realFetch);
    }
    // Pyodide fetches its files from indexURL: those are answered from the bytes above.
    window.fetch = function (input, init) {
      const url = String(input instanceof Request ? input.url : input);
      const name = url.split("/").pop();
      if (url.startsWith(DATA) && Object.prototype.hasOwnProperty.call(bytes, name)) {
        const type = name.endsWith(".wasm") ? "application/wasm" : "application/octet-stream";
        return Promise.resolve(new Response(bytes[name], { headers: { "Content-Type": type } }));
      }
      return realFetch(input, init);
    };
    const options = { indexURL: DATA };
    if (CONFIG.core === "pyodide.asm.mjs") {
      // From Pyodide 0.29 on, its core is a module, imported from its bytes (a blob: URL), as
      // a page from disk cannot import a file.
      const module = await dataBytes("pyodide.asm.mjs", realFetch);
      const url = URL.createObjectURL(new Blob([module], { type: "text/javascript" }));
      options.createPyodideModule = (await import(url)).default;
    } else {
      // Before, a classic script, which defines the function Pyodide then finds.
      await loadScript(BASE + "runtime/pyodide.asm.js");
    }
    return window.loadPyodide(options);
  }

  async function hostedPyodide() {
    await loadScript(CONFIG.url + "pyodide.js");
    return window.loadPyodide({ indexURL: CONFIG.url });
  }

  async function boot() {
    if (CONFIG.runtime === "absent") throw new Error(CONFIG.reason);
    const pyodide = CONFIG.runtime === "hosted" ? await hostedPyodide() : await localPyodide();
    const realFetch = window.fetch.bind(window);
    const zipped = await dataBytes("harness.zip", realFetch);
    const variants = new TextDecoder().decode(await dataBytes("variants.json", realFetch));
    pyodide.unpackArchive(zipped, "zip", { extractDir: "/home/pyodide/tryit" });
    pyodide.globals.set("GD_VARIANTS", variants);
    pyodide.runPython(
      "import sys\n" +
      "sys.path.insert(0, '/home/pyodide/tryit')\n" +
      "from harness.frontends.tryit import answer_json, load_rulesets\n" +
      "GD_RULESETS = load_rulesets(GD_VARIANTS)\n"
    );
    const answer = pyodide.globals.get("answer_json");
    const rulesets = pyodide.globals.get("GD_RULESETS");
    return function (slugs, request) {
      const list = pyodide.toPy(slugs);
      try {
        return JSON.parse(answer(rulesets, list, JSON.stringify(request)));
      } finally {
        list.destroy();
      }
    };
  }

  // ---------------------------------------------------------------------------------------
  // Drawing an answer

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value !== undefined && value !== null) node.setAttribute(key, value);
    }
    for (const child of children || []) {
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  const SUITS = { S: "♠", H: "♥", C: "♣", D: "♦" };

  function cardText(code, words) {
    if (code === "SB" || code === "HR") return words["rank." + code];
    const rank = code.slice(1) === "T" ? "10" : code.slice(1);
    return SUITS[code[0]] + rank;
  }

  function cardSpan(code, words) {
    const red = code[0] === "H" || code[0] === "D" || code === "HR";
    return el("span", { class: "gd-tryit-card" + (red ? " gd-red" : ""), "data-card": code }, [
      cardText(code, words),
    ]);
  }

  function rankText(rank, words) {
    if (rank === "SB" || rank === "HR") return words["rank." + rank];
    return rank === "T" ? "10" : rank;
  }

  const RUNS = ["straight", "tube", "plate", "straight_flush"];

  function readingText(r, words) {
    const kind = words["type." + r.type];
    const rank = rankText(r.rank, words);
    const count = words.comma + r.size + " " + words.cards;
    if (r.type === "joker_bomb") return kind + count;
    const place = RUNS.includes(r.type) ? words.to + " " + rank : (words.of ? words.of + " " : "") + rank;
    return kind + " " + place + count;
  }

  function readingAttrs(r, extra) {
    return Object.assign({ "data-type": r.type, "data-rank": r.rank, "data-size": String(r.size) }, extra || {});
  }

  function clauseLink(clause, panel) {
    const link = panel.dataset.clauseBase;
    return el("a", { href: link ? link + "#" + clause : "#" + clause, class: "gd-tryit-clause" }, [
      el("code", {}, [clause]),
    ]);
  }

  function drawOne(answer, words, panel) {
    const box = el("div", { class: "gd-tryit-variant", "data-variant": answer.variant }, []);
    if (answer.error) {
      box.append(el("p", { class: "gd-tryit-error" }, [words.error + ": " + answer.error]));
      return box;
    }
    box.append(el("h4", {}, [words.readings]));
    if (!answer.readings.length) {
      box.append(el("p", { class: "gd-tryit-noplay" }, [words.no_play]));
    }
    const readings = el("ul", { class: "gd-tryit-readings" }, []);
    for (const r of answer.readings) {
      const item = el("li", readingAttrs(r, { "data-default": String(r.default) }), [readingText(r, words)]);
      for (const w of r.wild) {
        item.append(" · ", cardSpan(w.card, words), " " + words.wild_as + " ", cardSpan(w.as, words));
      }
      if (r.default) item.append(" (" + words["default"] + ")");
      readings.append(item);
    }
    box.append(readings);
    if (answer.previous) {
      box.append(el("h4", {}, [words.previous + ": ", readingText(answer.previous, words)]));
      const verdicts = el("ul", { class: "gd-tryit-beats" }, []);
      for (const v of answer.beats) {
        verdicts.append(
          el("li", readingAttrs(v, { "data-beats": String(v.beats), "data-clause": v.clause }), [
            readingText(v, words) + " ",
            el("strong", {}, [v.beats ? words.beats : words.not_beats]),
            " · " + words.decided_by + " ",
            clauseLink(v.clause, panel),
          ])
        );
      }
      box.append(verdicts);
    }
    box.append(el("h4", {}, [answer.role === "leader" ? words.leader : words.follower]));
    const plays = el("div", { class: "gd-tryit-plays", "data-role": answer.role }, []);
    if (!answer.plays.length) plays.append(el("p", {}, [words.none]));
    const groups = new Map();
    for (const p of answer.plays) {
      if (!groups.has(p.type)) groups.set(p.type, []);
      groups.get(p.type).push(p);
    }
    for (const [type, list] of groups) {
      const items = el("ul", {}, []);
      for (const p of list) {
        const item = el("li", readingAttrs(p, { class: "gd-tryit-play" }), [readingText(p, words) + ": "]);
        for (const code of p.cards) item.append(cardSpan(code, words), " ");
        items.append(item);
      }
      plays.append(el("details", { class: "gd-tryit-group", "data-type": type }, [
        el("summary", {}, [words["type." + type] + " (" + list.length + ")"]),
        items,
      ]));
    }
    box.append(plays);
    return box;
  }

  function draw(panel, result, data) {
    const words = data.words;
    const out = panel.querySelector(".gd-tryit-answer");
    out.replaceChildren();
    if (data.variants.length === 1) {
      out.append(drawOne(result, words, panel));
      return;
    }
    const notes = el("div", { class: "gd-tryit-differences" }, []);
    if (!result.differences.length) {
      notes.append(el("p", { class: "gd-tryit-same" }, [words.same]));
    } else {
      notes.append(el("h4", {}, [words.differs]));
      const list = el("ul", {}, []);
      for (const d of result.differences) {
        const item = el("li", { "data-part": d.part, "data-variants": d.variants.join(" "), "data-clauses": d.clauses.join(" ") }, [
          words[d.part] || d.part,
          ": " + data.names[d.variants[0]] + " ≠ " +
            d.variants.slice(1).map(function (slug) { return data.names[slug]; }).join(", ") + " · ",
          (d.alone ? words.alone : words.together) + " ",
        ]);
        d.clauses.forEach(function (clause, i) {
          if (i) item.append(", ");
          item.append(clauseLink(clause, panel));
        });
        list.append(item);
      }
      notes.append(list);
    }
    out.append(notes);
    const grid = el("div", { class: "gd-tryit-grid" }, []);
    result.answers.forEach(function (answer, i) {
      const column = drawOne(answer, words, panel);
      // The variants that answer otherwise than most are marked (the first named is the most's).
      const differs = result.differences.some(function (d) { return d.variants.slice(1).includes(answer.variant); });
      column.prepend(el("h3", { class: differs ? "gd-tryit-differs" : "" }, [
        (differs ? "≠ " : "") + data.names[data.variants[i]],
      ]));
      grid.append(column);
    });
    out.append(grid);
  }

  // ---------------------------------------------------------------------------------------
  // The panel

  function status(panel, text, state) {
    panel.dataset.state = state;
    panel.querySelector(".gd-tryit-status").textContent = text;
  }

  function picker(panel, words) {
    const box = panel.querySelector(".gd-tryit-picker");
    if (box.childElementCount) return;
    let target = panel.querySelector("input[name=cards]");
    panel.querySelectorAll("input").forEach(function (input) {
      input.addEventListener("focus", function () { target = input; });
    });
    const codes = [];
    for (const suit of "SHCD") {
      for (const rank of "23456789TJQKA") codes.push(suit + rank);
    }
    codes.push("SB", "HR");
    for (const code of codes) {
      const button = el("button", { type: "button", class: "gd-tryit-pick", "data-card": code }, [cardText(code, words)]);
      button.addEventListener("click", function () {
        target.value = (target.value.trim() + " " + code).trim();
        target.focus();
      });
      box.append(button);
    }
  }

  async function ask(panel) {
    const data = JSON.parse(panel.dataset.tryit);
    if (!booting) return;
    let answer;
    try {
      answer = await booting;
    } catch (err) {
      return;
    }
    const form = panel.querySelector("form");
    const request = {
      cards: form.elements.cards.value,
      level: form.elements.level.value,
      previous: form.elements.previous.value,
      previous_type: form.elements.previous_type.value,
    };
    status(panel, data.words.asking, "asking");
    // Let the status show before the interpreter takes the thread.
    await new Promise(function (resolve) { setTimeout(resolve, 0); });
    try {
      const result = answer(data.variants, request);
      draw(panel, result, data);
      panel.dataset.asked = String(Number(panel.dataset.asked || "0") + 1);
      status(panel, data.words.ready, "ready");
    } catch (err) {
      status(panel, data.words.failed + ": " + err, "failed");
    }
  }

  function open(panel) {
    const data = JSON.parse(panel.dataset.tryit);
    picker(panel, data.words);
    if (!booting) booting = boot();
    if (panel.dataset.state === "ready" || panel.dataset.state === "asking") return;
    status(panel, data.words.loading, "loading");
    booting.then(
      function () { status(panel, data.words.ready, "ready"); ask(panel); },
      function (err) {
        const why = CONFIG.runtime === "absent" ? data.words.absent : data.words.failed;
        status(panel, why + ": " + (err && err.message ? err.message : err), "failed");
      }
    );
  }

  document.querySelectorAll("details.gd-tryit").forEach(function (panel) {
    panel.addEventListener("toggle", function () { if (panel.open) open(panel); });
    panel.querySelector("form").addEventListener("submit", function (event) {
      event.preventDefault();
      ask(panel);
    });
    if (panel.open) open(panel);
  });
})();
