import type { RoutePath } from '../../../core/schemas/run-detail';

const NODE_W = 216;
const NODE_H = 46;
const GAP_X = 24;
const GAP_Y = 34;
const PAD = 8;

type Placed = { id: string; x: number; y: number };

/**
 * Layers by the longest path from the first node, so parallel sub-questions sit side by side and a rewrite or
 * a clarification round follows below what led to it. Top to bottom, because a narrow screen is tall.
 */
function layout(path: RoutePath): { placed: Map<string, Placed>; width: number; height: number } {
  const depth = new Map<string, number>(path.nodes.map((node) => [node.id, 0]));
  // Edges are in the order the run took them, so one pass in that order settles every depth of a DAG.
  for (let pass = 0; pass < path.nodes.length; pass += 1) {
    let changed = false;
    for (const edge of path.edges) {
      const next = (depth.get(edge.from) ?? 0) + 1;
      if (depth.has(edge.to) && next > (depth.get(edge.to) ?? 0) && edge.from !== edge.to) {
        depth.set(edge.to, next);
        changed = true;
      }
    }
    if (!changed) break;
  }
  const rows = new Map<number, string[]>();
  for (const node of path.nodes) rows.set(depth.get(node.id) ?? 0, [...(rows.get(depth.get(node.id) ?? 0) ?? []), node.id]);
  const widest = Math.max(1, ...[...rows.values()].map((row) => row.length));
  const width = widest * NODE_W + (widest - 1) * GAP_X + 2 * PAD;
  const placed = new Map<string, Placed>();
  for (const [row, ids] of rows) {
    const rowWidth = ids.length * NODE_W + (ids.length - 1) * GAP_X;
    ids.forEach((id, i) => placed.set(id, { id, x: (width - rowWidth) / 2 + i * (NODE_W + GAP_X), y: PAD + row * (NODE_H + GAP_Y) }));
  }
  const height = PAD * 2 + rows.size * NODE_H + Math.max(0, rows.size - 1) * GAP_Y;
  return { placed, width, height };
}

// SVG text does not wrap: cut to what fits the box, counting a CJK (wide) character as two Latin ones.
const wide = (char: string) => /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u.test(char);
function clip(text: string, max: number): string {
  let used = 0;
  const chars = [...text];
  for (let i = 0; i < chars.length; i += 1) {
    used += wide(chars[i] ?? '') ? 2 : 1;
    if (used > max) return `${chars.slice(0, i).join('')}…`;
  }
  return text;
}

/** The graph's nodes and the edges the run actually took, as SVG (one <title> per node for the full text). */
export function RouteGraph({ path }: { path: RoutePath }) {
  if (path.nodes.length === 0) return <p className="muted">No route yet.</p>;
  const { placed, width, height } = layout(path);
  const summary = path.nodes.map((node) => node.label).join(' → ');
  return (
    <div className="graph-scroll">
      <svg className="route-graph" role="img" aria-label={`route path: ${summary}`} viewBox={`0 0 ${width} ${height}`} width={width} height={height}>
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M0,0 L10,5 L0,10 z" className="arrow-head" />
          </marker>
        </defs>
        {path.edges.map((edge, i) => {
          const from = placed.get(edge.from);
          const to = placed.get(edge.to);
          if (!from || !to) return null;
          const x1 = from.x + NODE_W / 2;
          const x2 = to.x + NODE_W / 2;
          const back = to.y <= from.y;
          const y1 = back ? from.y + NODE_H / 2 : from.y + NODE_H;
          const y2 = back ? to.y + NODE_H / 2 : to.y;
          const d = back ? `M${from.x + NODE_W},${y1} C${from.x + NODE_W + 40},${y1} ${to.x + NODE_W + 40},${y2} ${to.x + NODE_W},${y2}` : `M${x1},${y1} C${x1},${y1 + GAP_Y / 2} ${x2},${y2 - GAP_Y / 2} ${x2},${y2}`;
          return <path key={`${edge.from}-${edge.to}-${i}`} d={d} className="edge" markerEnd="url(#arrow)" data-edge={`${edge.from}->${edge.to}`} />;
        })}
        {path.nodes.map((node) => {
          const at = placed.get(node.id);
          if (!at) return null;
          return (
            <g key={node.id} transform={`translate(${at.x},${at.y})`} className={`node kind-${node.kind}`} data-node={node.id}>
              <title>{node.detail ? `${node.label}: ${node.detail}` : node.label}</title>
              <rect width={NODE_W} height={NODE_H} rx="8" />
              <text x="10" y={node.detail ? 19 : 28} className="node-label">{clip(node.label, 27)}</text>
              {node.detail && <text x="10" y="36" className="node-detail">{clip(node.detail, 33)}</text>}
            </g>
          );
        })}
      </svg>
    </div>
  );
}
