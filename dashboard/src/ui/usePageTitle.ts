import { useEffect } from "react"

/** The tab says where you are: "Links · Ricochet". */
export const usePageTitle = (title: string | undefined) => {
  useEffect(() => {
    document.title = title === undefined || title === "" ? "Ricochet" : `${title} · Ricochet`
  }, [title])
}
