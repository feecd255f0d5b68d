// The tab's title names the page, as its heading does (a screen reader says it first).
import { useEffect } from "preact/hooks";
import { common } from "../../i18n/common";
import { useText } from "../../i18n/index";

export function useTitle(title: string) {
  const app = useText(common).appName;
  useEffect(() => {
    document.title = `${title} – ${app}`;
  }, [title, app]);
}
