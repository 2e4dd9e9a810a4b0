import type { RunGrade } from '../../../core/schemas/run-detail';

/** Each grade of the evidence: the verdict, its confidence and reason, and the route it resolved to. */
export function GradesTable({ grades }: { grades: RunGrade[] }) {
  if (grades.length === 0) return <p className="muted">No grade (no evidence was graded).</p>;
  return (
    <div className="table-scroll">
      <table className="grades">
        <thead><tr><th scope="col">question</th><th scope="col">relevance</th><th scope="col">answerability</th><th scope="col">ambiguity</th><th scope="col">confidence</th><th scope="col">route</th><th scope="col">reason</th></tr></thead>
        <tbody>
          {grades.map((grade, i) => (
            <tr key={`${grade.workflowId}-${i}`}>
              <td lang="zh-CN">{grade.question}</td><td>{grade.relevance}</td><td>{grade.answerability}</td><td>{grade.ambiguity}</td>
              <td>{grade.confidence.toFixed(2)}</td><td>{grade.route}</td><td lang="zh-CN">{grade.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
