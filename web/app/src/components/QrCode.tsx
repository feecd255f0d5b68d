// A QR code drawn in SVG from a text (a wallet offer's link), by uqr (unjs/uqr: a zero-dependency
// TypeScript port of Project Nayuki's QR Code generator, about 4 kB gzip): the modules become one
// path of attributes, which the CSP allows, where an SVG string would need innerHTML.
import { encode } from "uqr";

export function QrCode({ text, label, class: className }: { text: string; label: string; class?: string }) {
  const qr = encode(text, { ecc: "M", border: 4 });
  let d = "";
  qr.data.forEach((row, y) =>
    row.forEach((dark, x) => {
      if (dark) d += `M${x} ${y}h1v1h-1z`;
    }),
  );
  return (
    <svg class={className} viewBox={`0 0 ${qr.size} ${qr.size}`} role="img" aria-label={label} shape-rendering="crispEdges">
      <rect width={qr.size} height={qr.size} fill="#fff" />
      <path d={d} fill="#000" />
    </svg>
  );
}
