// The choice of a certificate template: the account's templates and the system's, as cards
// with their previews, one radio group (arrow keys move the choice, as radios do).
import { useEffect, useId, useRef, useState } from "preact/hooks";
import type { Schemas } from "../../api/client";
import type { Problem } from "../../api/errors";
import { Loading, ProblemMessage } from "../../components/ui";
import { events as texts } from "../../i18n/events";
import { useText } from "../../i18n/index";
import { preview } from "./previews";

type Template = Schemas["Template"];

/** Preview shows a template's preview once its card comes into view. */
function Preview({ template }: { template: Template }) {
  const t = useText(texts);
  const box = useRef<HTMLDivElement>(null);
  const [src, setSrc] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    const load = () => void preview(template.id, template.updatedAt).then((u) => live && setSrc(u));
    const el = box.current;
    if (!el || typeof IntersectionObserver === "undefined") {
      load();
      return () => {
        live = false;
      };
    }
    const seen = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          seen.disconnect();
          load();
        }
      },
      { rootMargin: "200px" },
    );
    seen.observe(el);
    return () => {
      live = false;
      seen.disconnect();
    };
  }, [template.id, template.updatedAt]);
  return (
    <div class={`template-preview ${template.orientation}`} ref={box}>
      {src ? (
        // The card's name says which template it is: the picture adds nothing to hear.
        <img src={src} alt="" />
      ) : (
        <span class="hint">{src === null ? t.noPreview : t.previewLoading}</span>
      )}
    </div>
  );
}

export function TemplateGallery({
  templates,
  problem,
  value,
  onValue,
  error,
}: {
  templates: Template[] | null;
  problem: Problem | null;
  value: string;
  onValue: (id: string) => void;
  error?: string | undefined;
}) {
  const t = useText(texts);
  const id = useId();
  const described = [`${id}-hint`, error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <fieldset
      class={error ? "field invalid templates" : "field templates"}
      role="radiogroup"
      aria-labelledby={`${id}-legend`}
      aria-describedby={described}
      aria-invalid={error ? true : undefined}
    >
      <legend id={`${id}-legend`}>{t.templateLegend}</legend>
      <p class="hint" id={`${id}-hint`}>
        {t.templateHint}
      </p>
      {error && (
        <p class="error" id={`${id}-error`}>
          {error}
        </p>
      )}
      <ProblemMessage problem={problem} />
      {templates === null ? (
        !problem && <Loading />
      ) : templates.length === 0 ? (
        <p>{t.noTemplates}</p>
      ) : (
        <div class="template-cards">
          {templates.map((tp) => (
            <label key={tp.id} class="template-card">
              <Preview template={tp} />
              <span class="template-name">
                <input type="radio" name={`${id}-template`} value={tp.id} checked={tp.id === value} onChange={() => onValue(tp.id)} />
                <span>
                  {tp.name}
                  <span class="hint template-kind">{tp.system ? t.systemTemplate : tp.active ? t.ownTemplate : t.inactiveTemplate}</span>
                </span>
              </span>
            </label>
          ))}
        </div>
      )}
    </fieldset>
  );
}
