// Runs `callback` every `ms` while `ms` is not null (live counters, a delivery awaited); stops on unmount.
import { useEffect, useRef } from "preact/hooks";

export function useInterval(callback: () => void, ms: number | null): void {
  const latest = useRef(callback);
  latest.current = callback;
  useEffect(() => {
    if (ms === null) return;
    const timer = setInterval(() => latest.current(), ms);
    return () => clearInterval(timer);
  }, [ms]);
}
