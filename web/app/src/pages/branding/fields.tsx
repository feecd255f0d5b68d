// The branding form's own fields, framed as components/fields.tsx frames its select: a colour
// (a picker and its hex text) and an image (the current one, a file to upload, checked in the
// browser before anything is sent), each with its label, hint and error.
import { useId, useState } from "preact/hooks";
import { branding as texts } from "../../i18n/branding";
import { fill, useText } from "../../i18n/index";
import { checkFile, dataURIOf, pickerColour, typeOf } from "./model";
import { describedBy, Frame, type Common } from "../../components/fields";
export { Select } from "../../components/fields";

/**
 * ColourField is a colour written #RRGGBB, with a colour picker after it that shows it and
 * sets it (the picker is the swatch: no inline style, which the CSP forbids).
 */
export function ColourField({ label, value, onValue, error, hint, pickerLabel }: Common & {
  value: string;
  onValue: (v: string) => void;
  pickerLabel: string;
}) {
  const id = useId();
  return (
    <Frame id={id} label={label} hint={hint} error={error}>
      <div class="branding-colour">
        <input
          id={id}
          type="text"
          value={value}
          onInput={(e) => onValue(e.currentTarget.value)}
          maxLength={7}
          autocomplete="off"
          spellcheck={false}
          placeholder="#1F4E79"
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy(id, hint, error)}
        />
        <input
          type="color"
          aria-label={pickerLabel}
          value={pickerColour(value)}
          onInput={(e) => onValue(e.currentTarget.value.toUpperCase())}
          aria-describedby={hint ? `${id}-hint` : undefined}
        />
      </div>
    </Frame>
  );
}

/**
 * ImageField shows an image (a data URI) and takes a new one from a PNG or SVG file, refused in
 * words here when the API would refuse its type or size; error is the API's word on it.
 */
export function ImageField({ label, hint, value, onValue, error, maxBytes, alt, none, removeLabel }: Common & {
  value: string | null;
  onValue: (v: string | null, fileName?: string) => void;
  maxBytes: number;
  alt: string;
  none: string;
  removeLabel: string;
}) {
  const t = useText(texts);
  const id = useId();
  const [refused, setRefused] = useState<string | null>(null);
  const [chosen, setChosen] = useState<string | null>(null);
  const shown = refused ?? error;

  const choose = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (!file) return;
    const name = file.name;
    const no = checkFile(file, maxBytes);
    if (no) {
      // The choice is undone, so that the same file (once fixed) can be chosen again.
      input.value = "";
      setChosen(null);
      if (no.kind === "type") setRefused(fill(t.fileType, { name }));
      else if (no.kind === "empty") setRefused(fill(t.fileEmpty, { name }));
      else setRefused(fill(t.fileSize, { name, size: no.sizeKiB, max: no.maxKiB }));
      return;
    }
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      setRefused(null);
      setChosen(name);
      onValue(dataURIOf(typeOf(file), bytes), name);
    } catch {
      input.value = "";
      setRefused(fill(t.fileUnreadable, { name }));
    }
  };

  const remove = () => {
    setRefused(null);
    setChosen(null);
    onValue(null);
  };

  return (
    <Frame id={id} label={label} hint={hint} error={shown} extra="branding-image">
      <div class="branding-image-row">
        <div class="branding-preview">
          {value ? <img src={value} alt={alt} /> : <p class="hint">{none}</p>}
        </div>
        <div class="branding-image-actions">
          <input
            id={id}
            type="file"
            accept="image/png,image/svg+xml,.png,.svg"
            onChange={(e) => void choose(e.currentTarget)}
            aria-invalid={shown ? true : undefined}
            aria-describedby={describedBy(id, hint, shown ?? undefined)}
          />
          {value && (
            <button type="button" onClick={remove}>
              {removeLabel}
            </button>
          )}
          {chosen && value && <p class="hint">{fill(t.logoChosen, { name: chosen })}</p>}
        </div>
      </div>
    </Frame>
  );
}
