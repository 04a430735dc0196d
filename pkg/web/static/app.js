// Progressive enhancement only: every page works without this file. A copy
// button appears next to a one-time secret when the Clipboard API exists.
document.addEventListener("DOMContentLoaded", () => {
  for (const btn of document.querySelectorAll("button[data-copy]")) {
    const field = document.getElementById(btn.dataset.copy);
    const status = btn.parentElement.querySelector(".copied");
    if (!field || !navigator.clipboard) continue;
    btn.hidden = false;
    btn.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(field.value);
        status.textContent = "Copied.";
      } catch {
        field.select();
        status.textContent = "Select the key and copy it with your keyboard.";
      }
    });
  }
});
