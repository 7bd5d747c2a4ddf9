/* global document */
// Enhancement only: shows the Copy buttons and copies the field they name. The page works without it.
for (const button of document.querySelectorAll('button[data-copy]')) {
  const field = document.getElementById(button.dataset.copy);
  if (!field || !navigator.clipboard) continue;
  button.hidden = false;
  button.addEventListener('click', () => {
    navigator.clipboard.writeText(field.value).then(() => {
      button.textContent = 'Copied';
    });
  });
}
