// bookrag-neo4j web app: live indexing progress, confirmations, the large page view, ToC expand/collapse.
"use strict";

function pollJob(li) {
  const render = (job) => {
    li.dataset.state = job.state;
    li.querySelector(".state").textContent = job.state + (job.seconds ? ` in ${job.seconds.toFixed(1)} s` : "");
    li.querySelector(".error").textContent = job.error || "";
    li.querySelector(".note").textContent = job.note || "";
    li.querySelector(".stages").innerHTML = job.stages.map((s) =>
      `<li>${s.name.replace(/[&<>]/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;"}[c]))}: ${s.done}` +
      `${s.total ? "/" + s.total : ""}${s.finished ? " ✓" : ""}</li>`).join("");
  };
  const tick = async () => {
    try {
      const reply = await fetch(`/api/jobs/${li.dataset.job}`, {credentials: "same-origin"});
      if (!reply.ok) return;
      const job = await reply.json();
      render(job);
      if (job.state === "done") { location.replace("/"); return; }  // the table shows the new document
      if (job.state === "failed") return;
    } catch (e) { /* the server restarts: try again */ }
    setTimeout(tick, 700);
  };
  tick();
}
document.querySelectorAll("li.job").forEach((li) => {
  if (li.dataset.state === "queued" || li.dataset.state === "running") pollJob(li);
});

document.querySelectorAll("form[data-confirm]").forEach((form) =>
  form.addEventListener("submit", (e) => { if (!confirm(form.dataset.confirm)) e.preventDefault(); }));

const lightbox = document.getElementById("lightbox");
if (lightbox) {
  const frame = lightbox.querySelector(".frame");
  const close = () => { lightbox.hidden = true; frame.innerHTML = ""; };
  document.querySelectorAll("a[data-page]").forEach((a) => a.addEventListener("click", (e) => {
    e.preventDefault();
    frame.innerHTML = "";
    const img = document.createElement("img");
    img.src = a.href;
    img.alt = a.title || "page";
    frame.appendChild(img);
    a.querySelectorAll(".hl").forEach((hl) => frame.appendChild(hl.cloneNode()));
    lightbox.hidden = false;
  }));
  lightbox.addEventListener("click", close);
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") close(); });
}

document.querySelectorAll("button[data-toc]").forEach((b) => b.addEventListener("click", () =>
  document.querySelectorAll(".toc details").forEach((d) => { d.open = b.dataset.toc === "open"; })));

// The document viewer: every page, the cited items' boxes drawn on theirs, next and previous highlight.
const viewer = document.getElementById("viewer");
if (viewer) {
  const marks = JSON.parse(document.getElementById("marks").textContent);
  const pages = Number(viewer.dataset.pages) || 1;
  const sheet = viewer.querySelector(".sheet");
  const img = document.getElementById("sheet");
  let page = Number(viewer.dataset.start) || 1;
  let current = Math.max(0, marks.findIndex((m) => m.item === Number(viewer.dataset.at)));
  const show = () => {
    img.src = `/documents/${viewer.dataset.doc}/pages/${page}.png?scale=1.4`;
    img.alt = `page ${page}`;
    document.getElementById("page-now").textContent = page;
    document.getElementById("mark-now").textContent = marks.length ? current + 1 : 0;
    sheet.querySelectorAll(".hl").forEach((b) => b.remove());
    marks.forEach((m, i) => {
      if (m.page !== page) return;
      const box = document.createElement("span");
      box.className = "hl" + (i === current ? " current" : "");
      Object.assign(box.style, {left: `${m.left}%`, top: `${m.top}%`, width: `${m.width}%`, height: `${m.height}%`});
      sheet.appendChild(box);
    });
    const here = sheet.querySelector(".hl.current");
    if (here) here.scrollIntoView({block: "center"});
  };
  const go = {
    "page-prev": () => { page = Math.max(1, page - 1); },
    "page-next": () => { page = Math.min(pages, page + 1); },
    "mark-prev": () => { current = (current - 1 + marks.length) % marks.length; page = marks[current].page; },
    "mark-next": () => { current = (current + 1) % marks.length; page = marks[current].page; },
  };
  document.querySelectorAll("button[data-go]").forEach((b) => b.addEventListener("click", () => {
    go[b.dataset.go](); show();
  }));
  const keys = {ArrowLeft: "page-prev", ArrowRight: "page-next", k: "mark-prev", j: "mark-next"};
  document.addEventListener("keydown", (e) => {
    if (keys[e.key] && (marks.length || e.key.startsWith("Arrow"))) { go[keys[e.key]](); show(); }
  });
  if (marks.length) page = marks[current].page;
  show();
}
