import { render } from "preact";
import { App } from "./app";
import { takeLinkFromHash } from "./links";
import "./styles.css";

takeLinkFromHash();
const root = document.getElementById("app");
if (root) render(<App />, root);
