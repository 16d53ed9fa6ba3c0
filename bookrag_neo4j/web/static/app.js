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
