import { useLocation } from "../ui/router.tsx"
import { usePageTitle } from "../ui/usePageTitle.ts"
import { AnalyticsView } from "./AnalyticsView.tsx"
import { paramsOf, setParams } from "./query.ts"

/** The workspace's analytics; the view's state lives in the URL. */
export const AnalyticsPage = () => {
  usePageTitle("Analytics")
  const params = paramsOf(useLocation())
  return (
    <section aria-labelledby="analytics-title">
      <h1 id="analytics-title">Analytics</h1>
      <AnalyticsView params={params} onChange={setParams} />
    </section>
  )
}
