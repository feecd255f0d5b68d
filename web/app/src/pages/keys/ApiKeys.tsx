// The API keys page (/app/api-keys): the account's active keys, a form to create one (its
// secret shown once), and revoking a key after a confirmation.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, type Schemas } from "../../api/client";
import { problemOf, type Problem } from "../../api/errors";
import { Loading, ProblemMessage } from "../../components/ui";
import { common } from "../../i18n/common";
import { fill, useFormat, useText } from "../../i18n/index";
import { keys } from "../../i18n/keys";
import { useSession } from "../../session";
import { CreateKey } from "./CreateKey";
import { NewKey } from "./NewKey";
import { RevokeDialog } from "./RevokeDialog";

type ApiKey = Schemas["ApiKey"];

/** keep joins a date's words, so that a narrow table scrolls rather than breaking them. */
const keep = (s: string) => s.replace(/ /g, "\u00a0");

export function ApiKeys() {
  const t = useText(keys);
  const c = useText(common);
  const f = useFormat();
  const { profile } = useSession();
  const [list, setList] = useState<ApiKey[] | null>(null);
  const [listProblem, setListProblem] = useState<Problem | null>(null);
  const [created, setCreated] = useState<Schemas["CreatedApiKey"] | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [notice, setNotice] = useState("");
  const listHeading = useRef<HTMLHeadingElement>(null);
  // After a revocation, focus goes to the list once the dialog has gone (a modal dialog keeps
  // focus inside it while it is open).
  const [focusList, setFocusList] = useState(false);
  useEffect(() => {
    if (!focusList) return;
    listHeading.current?.focus();
    setFocusList(false);
  }, [focusList]);

  const load = async () => {
    setListProblem(null);
    const { data, error, response } = await api
      .GET("/api-keys")
      .catch(() => ({ data: undefined, error: undefined, response: undefined }));
    if (data) setList(data.data);
    else setListProblem(problemOf(error, response));
  };
  useEffect(() => {
    void load();
  }, []);

  // A viewer may read the keys; creating and revoking need the role issuer (or above).
  const manages = profile?.role !== "viewer";

  return (
    <>
      <h1>{t.title}</h1>
      <p>{t.intro}</p>
      {created && (
        <NewKey
          created={created}
          onDismiss={() => {
            setCreated(null);
            listHeading.current?.focus();
          }}
        />
      )}
      <div role="status">{notice && <p class="success">{notice}</p>}</div>

      <section aria-labelledby="keys-list-h">
        <h2 id="keys-list-h" ref={listHeading} tabIndex={-1}>
          {t.listTitle}
        </h2>
        <ProblemMessage problem={listProblem} />
        {listProblem ? (
          <button type="button" onClick={() => void load()}>
            {c.retry}
          </button>
        ) : list === null ? (
          <Loading />
        ) : list.length === 0 ? (
          <p>{t.noKeys}</p>
        ) : (
          <div class="table-wrap">
            <table aria-labelledby="keys-list-h">
              <thead>
                <tr>
                  <th scope="col">{t.name}</th>
                  <th scope="col">{t.prefix}</th>
                  <th scope="col">{t.scopes}</th>
                  <th scope="col">{t.created}</th>
                  <th scope="col">{t.lastUsed}</th>
                  <th scope="col">{t.expires}</th>
                  {manages && <th scope="col">{t.actions}</th>}
                </tr>
              </thead>
              <tbody>
                {list.map((k) => (
                  <tr key={k.id}>
                    <td>{k.name}</td>
                    <td>
                      <samp>{k.prefix}…</samp>
                    </td>
                    <td>
                      {k.scopes.map((s, i) => (
                        <span key={s}>
                          {i > 0 && <br />}
                          {s}
                        </span>
                      ))}
                    </td>
                    <td>
                      {keep(f.dateTime(k.createdAt))}
                      <br />
                      <span class="hint">{fill(t.createdBy, { name: k.createdBy.name })}</span>
                    </td>
                    <td>{k.lastUsedAt ? keep(f.dateTime(k.lastUsedAt)) : t.neverUsed}</td>
                    <td>{k.expiresAt ? keep(f.dateTime(k.expiresAt)) : t.never}</td>
                    {manages && (
                      <td>
                        {/* Named with the key's name, which the visible word begins: a
                            hidden span would escape the scrolling frame on phones. */}
                        <button type="button" class="danger" aria-label={fill(t.revokeLabel, { name: k.name })} onClick={() => setRevoking(k)}>
                          {t.revoke}
                        </button>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      {manages ? (
        <section aria-labelledby="keys-create-h">
          <h2 id="keys-create-h">{t.createTitle}</h2>
          <div class="card">
            <CreateKey
              twoFactorEnabled={profile?.twoFactorEnabled ?? false}
              onCreated={(k) => {
                setNotice("");
                setCreated(k);
                void load();
              }}
            />
          </div>
        </section>
      ) : (
        <p class="hint">{t.viewerNote}</p>
      )}

      {revoking && (
        <RevokeDialog
          apiKey={revoking}
          onClose={() => setRevoking(null)}
          onGone={() => void load()}
          onRevoked={(k) => {
            setRevoking(null);
            setNotice(fill(t.revoked, { name: k.name }));
            void load();
            setFocusList(true);
          }}
        />
      )}
    </>
  );
}
