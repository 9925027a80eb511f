// Next.js requires a root layout; the matrix serves route handlers only.
export default function RootLayout({ children }) {
  return children;
}
