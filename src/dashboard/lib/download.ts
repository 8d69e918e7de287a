// Saves text the app fetched (through the client library, with its credentials) as a file the browser
// downloads: a Blob URL behind an <a download>, released once clicked.
export function saveFile(name: string, text: string, type = "text/plain"): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
