// Adding a number: search a carrier's inventory and buy one of its numbers, or import a number you
// already have there (a SIP trunk's DID, a Twilio or Telnyx number).
import { useState } from "preact/hooks";
import type { AvailableNumber, PhoneNumber } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad } from "../../lib/use-load.ts";
import { DataTable } from "../../ui/data-table.tsx";
import { Field, SelectField } from "../../ui/field.tsx";
import { FormActions } from "../../ui/form-actions.tsx";
import { Empty, ProblemNotice } from "../../ui/status.tsx";
import { carrierChoices } from "./workspace-lists.ts";

interface AddNumberProps {
  mode: "buy" | "import";
  onAdded: (number: PhoneNumber) => void;
  onCancel: () => void;
}

export function AddNumber({ mode, onAdded, onCancel }: AddNumberProps) {
  const [carriers] = useLoad(carrierChoices, []);
  const [carrier, setCarrier] = useState("simulated");
  const [areaCode, setAreaCode] = useState("");
  const [contains, setContains] = useState("");
  const [number, setNumber] = useState("");
  const [label, setLabel] = useState("");
  const [found, setFound] = useState<AvailableNumber[] | null>(null);
  const action = useAction();
  const fields = action.problem?.fields ?? {};
  const options = carriers.status === "ready" ? carriers.data : [{ value: "simulated", label: "Simulated carrier (simulated)" }];
  const search = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const list = await session.client.phoneNumbers.available({ carrier_id: carrier, area_code: areaCode || undefined, contains: contains || undefined, limit: 10 });
      setFound(list.data);
    });
  };
  const buy = (chosen: string) => action.run(async () => onAdded(await session.client.phoneNumbers.buy({ number: chosen, carrier_id: carrier, label: label || undefined })));
  const importNumber = (event: Event) => {
    event.preventDefault();
    void action.run(async () => onAdded(await session.client.phoneNumbers.import({ number, carrier, label: label || undefined })));
  };
  const title = mode === "buy" ? "Buy a number" : "Import a number";
  return (
    <section class="panel ops-wide" aria-labelledby="add-number-title">
      <h2 id="add-number-title">{title}</h2>
      <ProblemNotice problem={action.problem} />
      <form onSubmit={mode === "buy" ? search : importNumber} noValidate>
        <SelectField label="Carrier" name={mode === "buy" ? "carrier_id" : "carrier"} value={carrier} onChange={setCarrier} options={options} error={fields.carrier_id ?? fields.carrier} />
        {mode === "buy" ? (
          <div class="ops-row">
            <Field label="Area code" name="area_code" value={areaCode} placeholder="415" error={fields.area_code} onInput={(e) => setAreaCode(e.currentTarget.value)} />
            <Field label="Contains" name="contains" value={contains} hint="Digits the number should include." error={fields.contains} onInput={(e) => setContains(e.currentTarget.value)} />
          </div>
        ) : (
          <Field label="Number" name="number" required value={number} placeholder="+14155550123" hint="In E.164 form: + and the country code." error={fields.number} onInput={(e) => setNumber(e.currentTarget.value)} />
        )}
        <Field label="Label" name="label" value={label} hint="Optional, e.g. “Support line”." error={fields.label} onInput={(e) => setLabel(e.currentTarget.value)} />
        <FormActions submit={mode === "buy" ? "Search" : "Import number"} busyLabel={mode === "buy" ? "Searching…" : "Importing…"} busy={action.busy} onCancel={onCancel} />
      </form>
      {mode === "buy" && found && found.length === 0 && (
        <Empty title="No numbers match">
          <p>Try another area code, or fewer digits.</p>
        </Empty>
      )}
      {mode === "buy" && found && found.length > 0 && (
        <DataTable caption="Numbers available" columns={["Number", "Region", null]}>
          {found.map((available) => (
            <tr key={available.number}>
              <th scope="row">
                <code>{available.number}</code>
              </th>
              <td>{available.region ?? "—"}</td>
              <td class="row-actions">
                <button type="button" class="button primary" disabled={action.busy} aria-label={`Buy ${available.number}`} onClick={() => buy(available.number)}>
                  Buy
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
