// The key just created, shown this once: the full secret, a way to copy it, the warning that
// it will not be shown again. Dismissing it drops the secret from the page's state.
import { useEffect, useId, useRef, useState } from "preact/hooks";
import type { Schemas } from "../../api/client";
import { fill, useText } from "../../i18n/index";
import { keys } from "../../i18n/keys";

export function NewKey({ created, onDismiss }: { created: Schemas["CreatedApiKey"]; onDismiss: () => void }) {
  const t = useText(keys);
  const id = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const [copy, setCopy] = useState<"" | "copied" | "failed">("");
  // Focus goes to the box when it appears: a screen reader hears its title and warning.
  useEffect(() => heading.current?.focus(), []);

  const copyKey = () => {
    setCopy("");
    const clip = typeof navigator !== "undefined" ? navigator.clipboard : undefined;
    if (!clip) {
      setCopy("failed");
      return;
    }
    clip.writeText(created.key).then(
      () => setCopy("copied"),
      () => setCopy("failed"),
    );
  };

  return (
    <section aria-labelledby={`${id}-h`} aria-describedby={`${id}-warn`}>
      <h2 id={`${id}-h`} ref={heading} tabIndex={-1}>
        {fill(t.newTitle, { name: created.name })}
      </h2>
      <div class="success">
      <p id={`${id}-warn`}>
        <strong>{t.newWarning}</strong>
      </p>
      <p>
        <code class="secret">{created.key}</code>
      </p>
      <div class="actions">
        <button type="button" class="primary" onClick={copyKey}>
          {t.copy}
        </button>
        <button type="button" onClick={onDismiss}>
          {t.dismiss}
        </button>
      </div>
      <p role="status">{copy === "copied" ? t.copied : copy === "failed" ? t.copyFailed : ""}</p>
      </div>
    </section>
  );
}
