// One member (item, or triangle slot) after a view's query: it leaves the PCS unless it was hidden
// from both sides in every view of the pass (its marks cover `full`): fully visible from one side,
// it collides with no other item of the PCS. Its marks are cleared for the next view. Returns 1
// when it stays. Used by update.glsl (a pass of its own) and by splat.glsl's query pass with
// CULLIDE_FOLD_UPDATE (the update done by the query's last workgroup). Needs alive[] and marks[].
uint cullideKeepMember(uint i, uint full) {
    uint m = marks[i];
    marks[i] = 0u;
    if (alive[i] == 0u) return 0u;
    if ((m & full) != full) {
        alive[i] = 0u;
        return 0u;
    }
    return 1u;
}
