export function App() {
  return <h1>chatd-edge</h1>;
}
